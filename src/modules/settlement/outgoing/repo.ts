// SQL of outgoing transfers, their reported events, and the per-address nonces (tables
// `outgoing_transfers`, `outgoing_transactions`, `outgoing_events`, `outgoing_nonces`).
import { type Insertable, sql } from 'kysely'
import { sendAhead } from '../../../db/ahead.ts'
import type { Executor, Tx } from '../../../db/index.ts'
import type { FeeWait, OutgoingTransfersTable } from '../../../db/tables/withdrawals.ts'
import { OPEN } from './types.ts'

export type OutgoingRow = NonNullable<Awaited<ReturnType<typeof outgoingRepo.load>>>

export const outgoingRepo = {
  /** Inserts a transfer; undefined when its idempotency key exists already. */
  async insert(tx: Tx, row: Insertable<OutgoingTransfersTable>): Promise<string | undefined> {
    const inserted = await tx
      .insertInto('outgoingTransfers')
      .values(row)
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning('id')
      .executeTakeFirst()
    return inserted?.id
  },

  /** The insert of a transfer whose key is new, built for the caller's statement (not executed). */
  insertNew(ex: Executor, row: Insertable<OutgoingTransfersTable>) {
    return ex.insertInto('outgoingTransfers').values(row)
  },

  async idByKey(ex: Executor, key: string): Promise<string> {
    const row = await ex
      .selectFrom('outgoingTransfers')
      .select('id')
      .where('idempotencyKey', '=', key)
      .executeTakeFirstOrThrow()
    return row.id
  },

  load(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('outgoingTransfers').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /**
   * A transfer as a run starts from, and whether a gas top-up to its sending address is open
   * (`toppingUp`, by `outgoing_transfers_open`): in the one statement the run reads it with.
   */
  loadForRun(ex: Executor, id: string, topUpPurpose: string) {
    return ex
      .selectFrom('outgoingTransfers as t')
      .selectAll('t')
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('outgoingTransfers as u')
              .select('u.id')
              .whereRef('u.toAddress', '=', 't.fromAddress')
              .where('u.purpose', '=', topUpPurpose)
              .where('u.status', 'in', OPEN)
              .whereRef('u.chainId', '=', 't.chainId'),
          )
          .as('toppingUp'),
      )
      .where('t.id', '=', id)
      .executeTakeFirst()
  },

  async statuses(ex: Executor, ids: string[]) {
    if (ids.length === 0) return []
    return ex.selectFrom('outgoingTransfers').select(['id', 'status']).where('id', 'in', ids).execute()
  },

  async setWakeSeq(ex: Executor, id: string, seq: number, at: Date) {
    await ex
      .updateTable('outgoingTransfers')
      .set({ wakeSeq: seq, updatedAt: at })
      .where('id', '=', id)
      .execute()
  },

  /** Sets (or clears, null) what an open transfer waits for the fee for (a settled one waits for
   * nothing: its settlement cleared it). */
  async setFeeWait(ex: Executor, id: string, wait: FeeWait | null, at: Date) {
    await ex
      .updateTable('outgoingTransfers')
      .set({ waitingForFee: wait === null ? null : JSON.stringify(wait), updatedAt: at })
      .where('id', '=', id)
      .where('status', 'not in', ['completed', 'failed'])
      .execute()
  },

  /** The statement that marks an open transfer started (its first pick-up), not executed; it
   * changes nothing when the transfer was started already, or is settled. */
  startStatement(ex: Executor, id: string, at: Date) {
    return ex
      .updateTable('outgoingTransfers')
      .set({ startedAt: at, updatedAt: at })
      .where('id', '=', id)
      .where('startedAt', 'is', null)
      .where('status', 'not in', ['completed', 'failed'])
  },

  /** Records the transfer's gas reservation (sent ahead: it travels with the next statement). */
  async setGasReserved(ex: Executor, id: string, reserved: bigint, holdId: string, at: Date) {
    await sendAhead(
      ex,
      ex
        .updateTable('outgoingTransfers')
        .set({ gasReserved: reserved.toString(), gasHoldId: holdId, updatedAt: at })
        .where('id', '=', id),
    )
  },

  /** Gas top-ups sent to `address`, newest first. */
  topUpsTo(ex: Executor, chainId: string, address: string, purpose: string) {
    return ex
      .selectFrom('outgoingTransfers')
      .select(['id', 'status', 'txHash'])
      .where('purpose', '=', purpose)
      .where('toAddress', '=', address)
      .where('chainId', '=', chainId)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .execute()
  },

  /** Locks (creating it when missing) the nonce row of a sending address; returns the next nonce.
   * One statement: the upsert's no-op update takes the row lock and answers the stored value. */
  async lockNonce(tx: Tx, chainId: string, address: string, at: Date): Promise<number> {
    const row = await tx
      .insertInto('outgoingNonces')
      .values({ chainId, address, nextNonce: 0, updatedAt: at })
      .onConflict((oc) =>
        oc.columns(['chainId', 'address']).doUpdateSet({ nextNonce: sql`outgoing_nonces.next_nonce` }),
      )
      .returning('nextNonce')
      .executeTakeFirstOrThrow()
    return Number(row.nextNonce)
  },

  /**
   * Takes the next nonce of a sending address in one statement (the row created when missing, and
   * locked until `tx` ends): the stored next nonce, or `atLeast` (the chain's count) when that is
   * ahead; the stored next nonce moves past it. Taken only if `tx` commits.
   */
  async takeNonce(tx: Tx, chainId: string, address: string, atLeast: number, at: Date): Promise<number> {
    const row = await tx
      .insertInto('outgoingNonces')
      .values({ chainId, address, nextNonce: atLeast + 1, updatedAt: at })
      .onConflict((oc) =>
        oc.columns(['chainId', 'address']).doUpdateSet({
          nextNonce: sql`greatest(outgoing_nonces.next_nonce, ${atLeast}) + 1`,
          updatedAt: at,
        }),
      )
      .returning('nextNonce')
      .executeTakeFirstOrThrow()
    return Number(row.nextNonce) - 1
  },

  async setNextNonce(tx: Tx, chainId: string, address: string, next: number, at: Date) {
    await tx
      .updateTable('outgoingNonces')
      .set({ nextNonce: next, updatedAt: at })
      .where('chainId', '=', chainId)
      .where('address', '=', address)
      .execute()
  },

  /**
   * Stores the first signed transaction of a queued transfer (status `signed`); answers the
   * transfer as stored, or undefined when it was not queued any more (nothing written).
   */
  async markSigned(
    tx: Tx,
    id: string,
    s: {
      nonce: number
      raw: string
      txHash: string
      gasLimit: bigint
      maxFee: bigint
    },
    at: Date,
  ) {
    const row = await tx
      .updateTable('outgoingTransfers')
      .set({
        status: 'signed',
        nonce: s.nonce,
        raw: s.raw,
        txHash: s.txHash,
        gasLimit: s.gasLimit.toString(),
        maxFee: s.maxFee.toString(),
        signedAt: at,
        updatedAt: at,
      })
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst()
    if (!row) return undefined
    await outgoingRepo.addTransaction(
      tx,
      { transferId: id, seq: 0, txHash: s.txHash, raw: s.raw, maxFee: s.maxFee },
      at,
    )
    return row
  },

  async addTransaction(
    tx: Tx,
    t: { transferId: string; seq: number; txHash: string; raw: string; maxFee: bigint },
    at: Date,
  ) {
    await sendAhead(
      tx,
      tx.insertInto('outgoingTransactions').values({
        transferId: t.transferId,
        seq: t.seq,
        txHash: t.txHash,
        raw: t.raw,
        maxFee: t.maxFee.toString(),
        signedAt: at,
      }),
    )
  },

  /** The signed transactions of a transfer, first first. */
  transactions(ex: Executor, transferId: string) {
    return ex
      .selectFrom('outgoingTransactions')
      .selectAll()
      .where('transferId', '=', transferId)
      .orderBy('seq')
      .execute()
  },

  /** Makes a replacement the transfer's current transaction (stored with `addTransaction`). */
  async setCurrent(tx: Tx, id: string, t: { raw: string; txHash: string; maxFee: bigint }, at: Date) {
    await sendAhead(
      tx,
      tx
        .updateTable('outgoingTransfers')
        .set({ raw: t.raw, txHash: t.txHash, maxFee: t.maxFee.toString(), updatedAt: at })
        .where('id', '=', id),
    )
  },

  /**
   * Records which of the transfer's transactions was mined (the others replaced); when it is not
   * the transfer's current one (a replacement mined in its stead, or the first after all), that one
   * becomes the transfer's. Sent ahead when the current one was mined.
   */
  async markMined(tx: Tx, transferId: string, txHash: string, at: Date, currentTxHash?: string | null) {
    const update = tx
      .updateTable('outgoingTransactions')
      .set({ status: sql`case when tx_hash = ${txHash} then 'mined' else 'replaced' end` })
      .where('transferId', '=', transferId)
      .where((eb) => eb.or([eb('txHash', '=', txHash), eb('status', '=', 'pending')]))
    if (txHash === currentTxHash) return sendAhead(tx, update)
    const mined = await update.returning(['txHash', 'raw', 'maxFee']).execute()
    const row = mined.find((m) => m.txHash === txHash)
    if (row)
      await tx
        .updateTable('outgoingTransfers')
        .set({ txHash, raw: row.raw, maxFee: row.maxFee, updatedAt: at })
        .where('id', '=', transferId)
        .execute()
  },

  /** Every transaction of the transfer still pending is recorded as replaced. */
  async markReplaced(tx: Tx, transferId: string) {
    await sendAhead(
      tx,
      tx
        .updateTable('outgoingTransactions')
        .set({ status: 'replaced' })
        .where('transferId', '=', transferId)
        .where('status', '=', 'pending'),
    )
  },

  /** The open transfer of an address signed with the next later nonce (it waits for this one). */
  nextSignedAfter(ex: Executor, chainId: string, address: string, nonce: number) {
    return ex
      .selectFrom('outgoingTransfers')
      .select(['id', 'purpose', 'wakeSeq'])
      .where('chainId', '=', chainId)
      .where('fromAddress', '=', address)
      .where('status', 'in', ['signed', 'sent'])
      .where('nonce', '>', nonce)
      .orderBy('nonce')
      .limit(1)
      .executeTakeFirst()
  },

  /** The queued transfers of an address with no gas reserved yet (at most `limit`, the oldest
   * first: one statement wakes them, and a statement's parameters are limited). */
  waitingForGas(ex: Executor, chainId: string, address: string, limit = 500) {
    return ex
      .selectFrom('outgoingTransfers')
      .select(['id', 'purpose', 'wakeSeq'])
      .where('chainId', '=', chainId)
      .where('fromAddress', '=', address)
      .where('status', '=', 'queued')
      .where('gasHoldId', 'is', null)
      .orderBy('createdAt')
      .limit(limit)
      .execute()
  },

  /** Queued transfers of an address with no gas reserved yet (but `except`), counted by coin. */
  queuedWithoutGas(ex: Executor, chainId: string, address: string, except: string) {
    return ex
      .selectFrom('outgoingTransfers')
      .select(['coin', (eb) => eb.fn.countAll<number>().as('n')])
      .where('chainId', '=', chainId)
      .where('fromAddress', '=', address)
      .where('status', '=', 'queued')
      .where('gasHoldId', 'is', null)
      .where('id', '!=', except)
      .groupBy('coin')
      .execute()
  },

  /** The next run's sequence number of an open transfer, taken in one statement; undefined when
   * the transfer is settled. */
  async nextWake(tx: Tx, id: string, at: Date) {
    const row = await tx
      .updateTable('outgoingTransfers')
      .set({
        wakeSeq: sql`wake_seq + 1`,
        updatedAt: at,
      })
      .where('id', '=', id)
      .where('status', 'not in', ['completed', 'failed'])
      .returning('wakeSeq')
      .executeTakeFirst()
    return row && Number(row.wakeSeq)
  },

  /** signed → sent (a no-op for any other status), not executed. */
  sentStatement(ex: Executor, id: string, at: Date) {
    return ex
      .updateTable('outgoingTransfers')
      .set({ status: 'sent', broadcastAt: at, updatedAt: at })
      .where('id', '=', id)
      .where('status', '=', 'signed')
  },

  /** Adds one failed attempt (and, when given, the next run's sequence number); sent ahead. */
  async addFailure(tx: Tx, id: string, f: { failures: number; message: string; wakeSeq?: number }, at: Date) {
    await sendAhead(
      tx,
      tx
        .updateTable('outgoingTransfers')
        .set({
          failures: f.failures,
          errors: sql`errors || ${JSON.stringify([f.message])}::jsonb`,
          ...(f.wakeSeq === undefined ? {} : { wakeSeq: f.wakeSeq }),
          updatedAt: at,
        })
        .where('id', '=', id),
    )
  },

  /** The transfer settled as completed; sent ahead. */
  async markCompleted(tx: Tx, id: string, receipt: string, at: Date) {
    await sendAhead(
      tx,
      tx
        .updateTable('outgoingTransfers')
        .set({ status: 'completed', receipt, settledAt: at, updatedAt: at, waitingForFee: null })
        .where('id', '=', id),
    )
  },

  /** The transfer settled as failed; sent ahead. */
  async markFailed(tx: Tx, id: string, error: string, receipt: string | null, at: Date) {
    await sendAhead(
      tx,
      tx
        .updateTable('outgoingTransfers')
        .set({ status: 'failed', error, receipt, settledAt: at, updatedAt: at, waitingForFee: null })
        .where('id', '=', id),
    )
  },

  /** Records that a reported event was applied; false when it had been already. */
  async claimEvent(tx: Tx, transferId: string, event: string, at: Date): Promise<boolean> {
    const row = await tx
      .insertInto('outgoingEvents')
      .values({ transferId, event, appliedAt: at })
      .onConflict((oc) => oc.columns(['transferId', 'event']).doNothing())
      .returning('event')
      .executeTakeFirst()
    return row !== undefined
  },
}
