// SQL of the withdrawals table (the sender keeps its own tables' SQL in sender.ts).

import type { Insertable } from 'kysely'
import { sql } from 'kysely'
import { type Write, withWrites } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { WithdrawalStatus, WithdrawalsTable } from '../../db/tables/withdrawals.ts'
import { newId } from '../../platform/crypto/ids.ts'

export const withdrawalRepo = {
  async insert(ex: Executor, row: Insertable<WithdrawalsTable>) {
    await ex.insertInto('withdrawals').values(row).execute()
  },

  /** A requested withdrawal's row and its audit entry (at the row's `createdAt`), in one statement. */
  async insertRequested(
    ex: Executor,
    row: Insertable<WithdrawalsTable> & { createdAt: Date },
    audit: { userId: string; action: string; ip: string | null; meta: Record<string, unknown> },
    writes: readonly Write[] = [],
  ) {
    await withWrites(ex, writes)
      .with('requested', (db) => db.insertInto('withdrawals').values(row))
      .insertInto('auditLog')
      .values({
        id: newId(),
        userId: audit.userId,
        action: audit.action,
        ip: audit.ip,
        meta: JSON.stringify(audit.meta),
        createdAt: row.createdAt,
      })
      .execute()
  },

  /** The withdrawal whose amount ledger hold `holdId` reserves (the hold its request's key names). */
  byHold(ex: Executor, ownerId: string, holdId: string) {
    return ex
      .selectFrom('withdrawals')
      .select(['id', 'coin', 'amount', 'address', 'outgoingId'])
      .where('ownerId', '=', ownerId)
      .where('holdId', '=', holdId)
      .executeTakeFirst()
  },

  /** What the account asked to withdraw of a coin since `since`, failed withdrawals left out. */
  async recentTotal(ex: Executor, ownerId: string, coin: string, since: Date): Promise<bigint> {
    const row = await ex
      .selectFrom('withdrawals')
      .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
      .where('ownerId', '=', ownerId)
      .where('coin', '=', coin)
      .where('status', '<>', 'failed')
      .where('createdAt', '>=', since)
      .executeTakeFirstOrThrow()
    return BigInt(row.total)
  },

  /** Open withdrawals (pending or processing) of this owner, coin, destination and amount. */
  openMatching(ex: Executor, m: { ownerId: string; coin: string; address: string; amount: bigint }) {
    return ex
      .selectFrom('withdrawals')
      .select('id')
      .where('ownerId', '=', m.ownerId)
      .where('coin', '=', m.coin)
      .where(sql<boolean>`lower(address) = ${m.address.toLowerCase()}`)
      .where('amount', '=', m.amount.toString())
      .where('status', 'in', ['pending', 'processing'])
      .execute()
  },

  lock(ex: Executor, id: string) {
    return ex.selectFrom('withdrawals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
  },

  /** `lock`, with its owner's email and first name (none once the account is deleted). */
  lockWithOwner(ex: Executor, id: string) {
    return ex
      .selectFrom('withdrawals')
      .leftJoin('users', (j) =>
        j.onRef('users.id', '=', 'withdrawals.ownerId').on('users.deletedAt', 'is', null),
      )
      .selectAll('withdrawals')
      .select(['users.email as ownerEmail', 'users.firstName as ownerFirstName'])
      .where('withdrawals.id', '=', id)
      .forUpdate('withdrawals')
      .executeTakeFirst()
  },

  async update(
    ex: Executor,
    at: Date,
    id: string,
    change: { status?: WithdrawalStatus; txHash?: string | null },
    onlyFrom?: WithdrawalStatus[],
    writes: readonly Write[] = [],
  ) {
    let q = withWrites(ex, writes)
      .updateTable('withdrawals')
      .set((eb) => ({ ...change, updatedAt: at, version: eb('version', '+', 1) }))
      .where('id', '=', id)
    if (onlyFrom) q = q.where('status', 'in', onlyFrom)
    await q.execute()
  },

  /** Appends a failure's message; `attempt` false for one that was no attempt (a cancellation). */
  async recordFailure(ex: Executor, at: Date, id: string, message: string, attempt = true) {
    await ex
      .updateTable('withdrawals')
      .set((eb) => ({
        retryCount: eb('retryCount', '+', attempt ? 1 : 0),
        errMsg: sql`err_msg || ${JSON.stringify([message])}::jsonb`,
        updatedAt: at,
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .execute()
  },

  async list(
    ex: Executor,
    ownerId: string,
    q: { page: number; limit: number; status?: WithdrawalStatus; coin?: string },
  ) {
    let base = ex.selectFrom('withdrawals').where('ownerId', '=', ownerId)
    if (q.status) base = base.where('status', '=', q.status)
    if (q.coin) base = base.where('coin', '=', q.coin.toLowerCase())
    return countedPage(base, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'newest' }, q)
  },
}
