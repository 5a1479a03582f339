// SQL of the operator's list of escrow payout legs (tables `escrow_legs`, `escrows`, with the
// receiver's account).
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { LegKind, LegStatus } from '../../db/tables/escrow.ts'
import { escrowColumns as recordColumns } from './repo.ts'

export interface LegFilter {
  /** a stored status, or `failing`: not settled yet with failed attempts */
  status?: LegStatus | 'failing' | undefined
  kind?: LegKind | undefined
  coin?: string | undefined
  escrowId?: string | undefined
  /** created at or after `from`, before `to` */
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

const columns = [
  'l.id',
  'l.escrowId',
  'l.kind',
  'l.seq',
  'l.toAddress',
  'l.amount',
  'l.status',
  'l.attempt',
  'l.failures',
  'l.lastError',
  'l.outgoingId',
  'l.txHash',
  'l.createdAt',
  'l.updatedAt',
  'e.coin',
  'e.payerId',
  'e.receiverId',
  'e.collectionId',
  'u.email as receiverEmail',
] as const

export const legOperatorRepo = {
  async list(ex: Executor, f: LegFilter) {
    let q = ex
      .selectFrom('escrowLegs as l')
      .innerJoin('escrows as e', 'e.id', 'l.escrowId')
      .leftJoin('users as u', 'u.id', 'e.receiverId')
    if (f.status === 'failing')
      q = q.where('l.status', 'in', ['awaiting', 'processing']).where('l.failures', '>', 0)
    else if (f.status) q = q.where('l.status', '=', f.status)
    if (f.kind) q = q.where('l.kind', '=', f.kind)
    if (f.coin) q = q.where('e.coin', '=', f.coin)
    if (f.escrowId) q = q.where('l.escrowId', '=', f.escrowId)
    if (f.from) q = q.where('l.createdAt', '>=', f.from)
    if (f.to) q = q.where('l.createdAt', '<', f.to)
    return countedPage(q, (q) => q.select(columns), { by: ['l.createdAt', 'l.id'], first: 'oldest' }, f)
  },

  get(ex: Executor, id: string) {
    return ex
      .selectFrom('escrowLegs as l')
      .innerJoin('escrows as e', 'e.id', 'l.escrowId')
      .leftJoin('users as u', 'u.id', 'e.receiverId')
      .select(columns)
      .where('l.id', '=', id)
      .executeTakeFirst()
  },
}

export type LegOperatorRow = NonNullable<Awaited<ReturnType<typeof legOperatorRepo.get>>>

/** What the escrow record holds that the operator's pages do not show: the quote's rate and fee
 * terms, the part funded to children, the row version. */
const unshown = [
  'rate',
  'feePercent',
  'usdFeeCents',
  'usdAmountCents',
  'fundedToChildren',
  'version',
] as const
type Unshown = (typeof unshown)[number]
const escrowColumns = [
  ...recordColumns.filter(
    (c): c is Exclude<typeof c, Unshown> => !(unshown as readonly string[]).includes(c),
  ),
  'updatedAt',
] as const

/** SQL of the operator's escrow pages: one escrow, a user's escrows. */
export const escrowOperatorRepo = {
  get(ex: Executor, id: string) {
    return ex.selectFrom('escrows').select(escrowColumns).where('id', '=', id).executeTakeFirst()
  },

  /** A user's newest escrows as payer or receiver (escrows_payer, escrows_receiver). */
  ofUser(ex: Executor, userId: string, limit: number) {
    return ex
      .selectFrom('escrows')
      .select(escrowColumns)
      .where((eb) => eb.or([eb('payerId', '=', userId), eb('receiverId', '=', userId)]))
      .orderBy('createdAt', 'desc')
      .limit(limit)
      .execute()
  },
}

export type EscrowOperatorRow = NonNullable<Awaited<ReturnType<typeof escrowOperatorRepo.get>>>
