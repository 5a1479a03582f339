// The only SQL over direct_deposits: the public payment orders of collections (each an escrow).
import type { Insertable } from 'kysely'
import type { Executor } from '../../db/index.ts'
import type { DirectDepositsTable } from '../../db/tables/escrow.ts'

const columns = [
  'id',
  'escrowId',
  'collectionId',
  'payerEmail',
  'payerAddress',
  'expiresAt',
  'expiredAt',
  'operatorRefund',
  'createdAt',
] as const

export type DirectDepositRow = NonNullable<Awaited<ReturnType<typeof directDepositRepo.get>>>

export const directDepositRepo = {
  get(ex: Executor, id: string) {
    return ex.selectFrom('directDeposits').select(columns).where('id', '=', id).executeTakeFirst()
  },

  byEscrow(ex: Executor, escrowId: string) {
    return ex.selectFrom('directDeposits').select(columns).where('escrowId', '=', escrowId).executeTakeFirst()
  },

  /** The collection's latest order. */
  latestOf(ex: Executor, collectionId: string) {
    return ex
      .selectFrom('directDeposits')
      .select(columns)
      .where('collectionId', '=', collectionId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
  },

  async insert(ex: Executor, row: Insertable<DirectDepositsTable>) {
    await ex.insertInto('directDeposits').values(row).execute()
  },

  async markExpired(ex: Executor, id: string, now: Date) {
    await ex
      .updateTable('directDeposits')
      .set({ expiredAt: now, updatedAt: now })
      .where('id', '=', id)
      .where('expiredAt', 'is', null)
      .execute()
  },

  /** What the order's escrow holds for its payer that no transfer can return (an email only). */
  async setOperatorRefund(ex: Executor, escrowId: string, amount: bigint, now: Date) {
    await ex
      .updateTable('directDeposits')
      .set({ operatorRefund: amount, updatedAt: now })
      .where('escrowId', '=', escrowId)
      .execute()
  },
}
