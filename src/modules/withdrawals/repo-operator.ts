// SQL of the operator's list of withdrawals (table `withdrawals`, with the requester's account).
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { WithdrawalStatus } from '../../db/tables/withdrawals.ts'

export interface WithdrawalFilter {
  /** a stored status, or `failing`: still processing with failed attempts */
  status?: WithdrawalStatus | 'failing' | undefined
  coin?: string | undefined
  userId?: string | undefined
  /** `oldest` first (default) or `newest` first */
  order?: 'oldest' | 'newest' | undefined
  /** created at or after `from`, before `to` */
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

const columns = [
  'w.id',
  'w.ownerId',
  'u.email',
  'u.userName',
  'w.coin',
  'w.address',
  'w.amount',
  'w.fee',
  'w.status',
  'w.retryCount',
  'w.errMsg',
  'w.outgoingId',
  'w.txHash',
  'w.createdAt',
  'w.updatedAt',
] as const

export const withdrawalOperatorRepo = {
  async list(ex: Executor, f: WithdrawalFilter) {
    let q = ex.selectFrom('withdrawals as w').leftJoin('users as u', 'u.id', 'w.ownerId')
    if (f.status === 'failing')
      q = q.where('w.status', 'in', ['pending', 'processing']).where('w.retryCount', '>', 0)
    else if (f.status) q = q.where('w.status', '=', f.status)
    if (f.coin) q = q.where('w.coin', '=', f.coin)
    if (f.userId) q = q.where('w.ownerId', '=', f.userId)
    if (f.from) q = q.where('w.createdAt', '>=', f.from)
    if (f.to) q = q.where('w.createdAt', '<', f.to)
    return countedPage(
      q,
      (q) => q.select(columns),
      { by: ['w.createdAt', 'w.id'], first: f.order ?? 'oldest' },
      f,
    )
  },

  /** The newest withdrawals to a destination address, any case (withdrawals_address). */
  toAddress(ex: Executor, address: string, limit: number) {
    return ex
      .selectFrom('withdrawals as w')
      .leftJoin('users as u', 'u.id', 'w.ownerId')
      .select(columns)
      .where(sql<string>`lower(w.address)`, '=', address.toLowerCase())
      .orderBy('w.createdAt', 'desc')
      .limit(limit)
      .execute()
  },

  get(ex: Executor, id: string) {
    return ex
      .selectFrom('withdrawals as w')
      .leftJoin('users as u', 'u.id', 'w.ownerId')
      .select(columns)
      .where('w.id', '=', id)
      .executeTakeFirst()
  },
}

export type WithdrawalOperatorRow = NonNullable<Awaited<ReturnType<typeof withdrawalOperatorRepo.get>>>
