// The only SQL over platform transfer findings: transactions of custodial addresses whose key was
// never exported that no outgoing transfer of this database signed (a restored copy).
import { sql } from 'kysely'
import type { Executor, Tx } from '../../../db/index.ts'
import { countedPage } from '../../../db/reads.ts'
import type { PlatformTransferRecordKind, PlatformTransferStatus } from '../../../db/tables/restore.ts'
import { type Resolution, resolvedColumns } from '../resolution.ts'

export type PlatformTransferRow = NonNullable<Awaited<ReturnType<typeof findingsRepo.get>>>

export const findingsRepo = {
  /** Records a finding once per transaction; undefined when it was recorded before. */
  async insert(
    tx: Tx,
    row: {
      id: string
      chainId: string
      txHash: string
      address: string
      ownerKind: string
      ownerId: string
      coin: string
      amount: bigint
      toAddress: string | null
      gasCoin: string | null
      gasFee: bigint
      blockNumber: number
      detectedAt: Date
    },
  ): Promise<string | undefined> {
    const inserted = await tx
      .insertInto('platformTransferFindings')
      .values({ ...row, amount: row.amount.toString(), gasFee: row.gasFee.toString() })
      .onConflict((oc) => oc.columns(['chainId', 'txHash']).doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted?.id
  },

  get(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('platformTransferFindings').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /** The status of the finding of each transaction among `hashes` (lower case) that has one. */
  async statusByHash(ex: Executor, chainId: string, hashes: string[]) {
    if (hashes.length === 0) return new Map<string, PlatformTransferStatus>()
    const rows = await ex
      .selectFrom('platformTransferFindings')
      .select(['txHash', 'status'])
      .where('chainId', '=', chainId)
      .where('txHash', 'in', hashes)
      .execute()
    return new Map(rows.map((r) => [r.txHash, r.status]))
  },

  async list(ex: Executor, q: { status?: PlatformTransferStatus | undefined; page: number; limit: number }) {
    let base = ex.selectFrom('platformTransferFindings')
    if (q.status) base = base.where('status', '=', q.status)
    return countedPage(
      base,
      (b) => b.selectAll(),
      { by: ['detectedAt', 'id'], first: 'newest' },
      { page: q.page, limit: q.limit },
    )
  },

  async resolve(
    tx: Tx,
    id: string,
    r: Resolution<Exclude<PlatformTransferStatus, 'open'>> & {
      withdrawalId?: string | null
      transferId?: string | null
      record?: { kind: PlatformTransferRecordKind; id: string } | null
    },
  ) {
    await tx
      .updateTable('platformTransferFindings')
      .set({
        ...resolvedColumns(r),
        withdrawalId: r.withdrawalId ?? null,
        transferId: r.transferId ?? null,
        recordKind: r.record?.kind ?? null,
        recordId: r.record?.id ?? null,
      })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .execute()
  },

  /** Takes the parked movements of `txHash` leaving `address` out of the parking, recording the
   * ledger transfer that now accounts for them (the withdrawal's). */
  async settleParked(tx: Tx, chainId: string, txHash: string, address: string, transferId: string | null) {
    const res = await tx
      .updateTable('chainEvents')
      .set({ held: null, transferId })
      .where('chainId', '=', chainId)
      .where('txHash', '=', txHash)
      .where('address', '=', address)
      .where('kind', 'in', ['withdrawal', 'fee'])
      .where('held', 'is not', null)
      .executeTakeFirst()
    return Number(res.numUpdatedRows)
  },

  /**
   * The parked arrivals of `txHash` (its value landing at another custodial address) become the
   * platform's own transfer, as the watcher would have read them had the copy registered the
   * transaction: credited to the address's owner without an outside deposit record of its own (the
   * re-attached record is the user's record of it).
   */
  async ownParkedArrivals(tx: Tx, chainId: string, txHash: string) {
    const res = await tx
      .updateTable('chainEvents')
      .set({ held: sql`jsonb_set(held, '{own}', 'true'::jsonb)` as never })
      .where('chainId', '=', chainId)
      .where('txHash', '=', txHash)
      .where('kind', '=', 'deposit')
      .where('held', 'is not', null)
      .executeTakeFirst()
    return Number(res.numUpdatedRows)
  },

  /** Open findings whose value or gas moved in `coin`. */
  async openOfCoin(ex: Executor, coin: string): Promise<number> {
    const row = await ex
      .selectFrom('platformTransferFindings')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'open')
      .where((eb) => eb.or([eb('coin', '=', coin), eb('gasCoin', '=', coin)]))
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },

  async openCount(ex: Executor): Promise<number> {
    const row = await ex
      .selectFrom('platformTransferFindings')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', 'open')
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },

  /** The copy's next nonce for `address` moves past `nonce` (a transaction it now accounts for). */
  async moveNoncePast(tx: Tx, chainId: string, address: string, nonce: number, at: Date) {
    await tx
      .insertInto('outgoingNonces')
      .values({ chainId, address, nextNonce: nonce + 1, updatedAt: at })
      .onConflict((oc) =>
        oc.columns(['chainId', 'address']).doUpdateSet({
          nextNonce: sql`greatest(outgoing_nonces.next_nonce, excluded.next_nonce)` as never,
          updatedAt: at,
        }),
      )
      .execute()
  },

  /** The next nonce the database would give a sending address (null: it never sent). */
  async nextNonce(ex: Executor, chainId: string, address: string): Promise<number | null> {
    const row = await ex
      .selectFrom('outgoingNonces')
      .select('nextNonce')
      .where('chainId', '=', chainId)
      .where('address', '=', address)
      .executeTakeFirst()
    return row ? Number(row.nextNonce) : null
  },
}
