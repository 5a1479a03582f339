// The only SQL over the reorganisation findings, and the watcher's chain events a finding is
// looked for among (both settlement's own tables).
import type { Selectable } from 'kysely'
import type { Executor, Tx } from '../../../db/index.ts'
import { countedPage } from '../../../db/reads.ts'
import type { ReorgFindingStatus, ReorgFindingsTable } from '../../../db/tables/reorgs.ts'
import { type Resolution, resolvedColumns } from '../resolution.ts'
import { recordedDepositColumns } from '../watcher/repo.ts'

/** A deposit the watcher recorded (credited or parked), as a reorganisation check needs it. */
export interface RecordedDeposit {
  chainId: string
  txHash: string
  logIndex: number
  address: string
  ownerKind: string
  ownerId: string
  coin: string
  amount: bigint
  blockNumber: number
  blockHash: string
  transferId: string | null
  accountId: string | null
  /** parked while its coin was halted, not credited */
  parked: boolean
}

/** A finding as its table holds it. */
export type FindingRow = Selectable<ReorgFindingsTable>

export const reorgRepo = {
  /** Deposits of the chain recorded in blocks `from..to`, credited or parked. */
  async depositsIn(ex: Executor, chainId: string, from: number, to: number): Promise<RecordedDeposit[]> {
    const rows = await ex
      .selectFrom('chainEvents')
      .select(['chainId', ...recordedDepositColumns, 'blockHash', 'transferId', 'accountId', 'held'])
      .where('chainId', '=', chainId)
      .where('kind', '=', 'deposit')
      .where('blockNumber', '>=', from)
      .where('blockNumber', '<=', to)
      .where((eb) => eb.or([eb('transferId', 'is not', null), eb('held', 'is not', null)]))
      .orderBy('blockNumber')
      .execute()
    return rows.map(({ held, amount, ...r }) => ({ ...r, amount: BigInt(amount), parked: held !== null }))
  },

  /** Takes a parked deposit out of the parking for good (it vanished: nothing to credit). */
  async dropParked(tx: Tx, d: Pick<RecordedDeposit, 'chainId' | 'txHash' | 'logIndex' | 'address'>) {
    const res = await tx
      .deleteFrom('chainEvents')
      .where('chainId', '=', d.chainId)
      .where('txHash', '=', d.txHash)
      .where('logIndex', '=', d.logIndex)
      .where('kind', '=', 'deposit')
      .where('address', '=', d.address)
      .where('held', 'is not', null)
      .executeTakeFirst()
    return Number(res.numDeletedRows) > 0
  },

  /** The user-facing transaction record of a recorded deposit (null when it has none). */
  async transactionOf(
    ex: Executor,
    d: Pick<RecordedDeposit, 'chainId' | 'txHash' | 'logIndex' | 'address'>,
  ): Promise<string | null> {
    const row = await ex
      .selectFrom('chainEvents')
      .select('transactionId')
      .where('chainId', '=', d.chainId)
      .where('txHash', '=', d.txHash)
      .where('logIndex', '=', d.logIndex)
      .where('kind', '=', 'deposit')
      .where('address', '=', d.address)
      .executeTakeFirst()
    return row?.transactionId ?? null
  },

  /**
   * Whether the watcher recorded the deposit's transaction again as another movement (mined again
   * above the cursor, its log at another index): that one is credited (or parked) on its own.
   */
  async recordedAgain(
    ex: Executor,
    d: Pick<RecordedDeposit, 'chainId' | 'txHash' | 'logIndex' | 'address'>,
  ): Promise<boolean> {
    const row = await ex
      .selectFrom('chainEvents')
      .select('logIndex')
      .where('chainId', '=', d.chainId)
      .where('txHash', '=', d.txHash)
      .where('kind', '=', 'deposit')
      .where('address', '=', d.address)
      .where('logIndex', '<>', d.logIndex)
      .executeTakeFirst()
    return row !== undefined
  },

  async exists(ex: Executor, d: Pick<RecordedDeposit, 'chainId' | 'txHash' | 'logIndex' | 'address'>) {
    const row = await ex
      .selectFrom('reorgFindings')
      .select('id')
      .where('chainId', '=', d.chainId)
      .where('txHash', '=', d.txHash)
      .where('logIndex', '=', d.logIndex)
      .where('address', '=', d.address)
      .executeTakeFirst()
    return row !== undefined
  },

  async insert(
    tx: Tx,
    row: Omit<
      FindingRow,
      'resolvedAt' | 'resolvedBy' | 'resolveReason' | 'reversalTransferId' | 'lossTransferId' | 'amount'
    > & {
      amount: bigint
      resolvedAt?: Date | null
      resolvedBy?: string | null
      resolveReason?: string | null
    },
  ) {
    await tx
      .insertInto('reorgFindings')
      .values({ ...row, amount: row.amount.toString() })
      .execute()
  },

  get(ex: Executor, id: string, opts: { forUpdate?: boolean } = {}): Promise<FindingRow | undefined> {
    let q = ex.selectFrom('reorgFindings').selectAll().where('id', '=', id)
    if (opts.forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  list(ex: Executor, f: { status?: ReorgFindingStatus | undefined; page: number; limit: number }) {
    let q = ex.selectFrom('reorgFindings')
    if (f.status) q = q.where('status', '=', f.status)
    return countedPage(q, (q) => q.selectAll(), { by: ['detectedAt', 'id'], first: 'newest' }, f)
  },

  async resolve(
    tx: Tx,
    id: string,
    r: Resolution<Exclude<ReorgFindingStatus, 'open'>> & {
      reversalTransferId?: string | null
      lossTransferId?: string | null
      shortfall?: bigint
    },
  ) {
    await tx
      .updateTable('reorgFindings')
      .set({
        ...resolvedColumns(r),
        reversalTransferId: r.reversalTransferId ?? null,
        lossTransferId: r.lossTransferId ?? null,
        ...(r.shortfall !== undefined ? { shortfall: r.shortfall.toString() } : {}),
      })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .execute()
  },
}
