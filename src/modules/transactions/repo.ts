// The SQL of the user-facing transaction records: written in the caller's database transaction,
// read by #24 and #25.
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { TransactionsTable } from '../../db/tables/wallet.ts'

type Status = TransactionsTable['status']
type Type = TransactionsTable['type']

export interface TransactionRowInput {
  id: string
  ownerId: string
  amount: string
  coin: string
  chainId: string
  usdValue: string | null
  rate: string | null
  description: string
  txInfo: string | null
  type: Type
  method: string
  status: Status
  isFee: boolean
  isPlatformFee: boolean
  isExternal: boolean | null
  responseData: string
  transferId: string | null
  txHash: string | null
  createdAt: Date
  updatedAt: Date
}

export interface TransactionChange {
  status?: Status
  responseData?: string
  txHash?: string | null
  transferId?: string | null
  description?: string
}

export interface TransactionPage {
  page: number
  limit: number
  type?: Type
  status?: Status
  coin?: string
}

export const transactionsRepo = {
  async insert(ex: Executor, row: TransactionRowInput): Promise<void> {
    await transactionsRepo.insertStatement(ex, row).execute()
  },

  /** The insert of a record, built for the caller's statement (not executed). */
  insertStatement(ex: Executor, row: TransactionRowInput) {
    return ex.insertInto('transactions').values(row)
  },

  async update(ex: Executor, id: string, change: TransactionChange, now: Date): Promise<void> {
    await ex
      .updateTable('transactions')
      .set((eb) => ({ ...change, updatedAt: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .execute()
  },

  /** One page of an owner's records, newest first, with the number of all that match (one statement). */
  async page(ex: Executor, ownerId: string, f: TransactionPage) {
    let base = ex.selectFrom('transactions').where('ownerId', '=', ownerId)
    if (f.type) base = base.where('type', '=', f.type)
    if (f.status) base = base.where('status', '=', f.status)
    if (f.coin) base = base.where('coin', '=', f.coin.toLowerCase())
    return countedPage(base, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'newest' }, f, 'in-page')
  },

  ownedBy(ex: Executor, ownerId: string, id: string) {
    return ex
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', id)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
  },
}
