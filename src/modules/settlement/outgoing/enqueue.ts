// The intent: a caller writes an outgoing transfer (and the job that sends it) inside its own
// database transaction, with the change that needs it. Nothing is sent unless that commits.
import { isAddress } from 'viem'
import { type Write, write } from '../../../db/compose.ts'
import type { Executor, Tx } from '../../../db/index.ts'
import type { OutgoingFromKind } from '../../../db/tables/withdrawals.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import { outgoingRepo } from './repo.ts'
import { logOf } from './report.ts'
import { type EnqueueTransfer, jobOf, OUTGOING_JOB, platformSigner, type SenderContext } from './types.ts'

/**
 * Queues a transfer inside the caller's transaction. Returns the transfer id; the same `key`
 * returns the first transfer's id (`replayed`).
 */
export async function enqueueTransfer(
  s: SenderContext,
  tx: Tx,
  input: EnqueueTransfer,
): Promise<{ id: string; replayed: boolean }> {
  const row = await transferRow(s, tx, input)
  const inserted = await outgoingRepo.insert(tx, row)
  if (!inserted) return { id: await outgoingRepo.idByKey(tx, input.key), replayed: true }
  await scheduleRun(s, tx, row, 0, row.createdAt)
  logQueued(s, row)
  return { id: row.id, replayed: false }
}

/**
 * A transfer whose `key` no transfer can have yet (it names a record the caller is creating in
 * `tx`), queued by the caller's own statement (`withWrites`, src/db/compose.ts): the transfer's
 * id, and the inserts of its row and of its first run's job, not executed. A key taken after all
 * fails that statement (a unique violation), and the caller's transaction with it.
 */
export async function transferWrites(
  s: SenderContext,
  tx: Tx,
  input: EnqueueTransfer,
): Promise<{ id: string; writes: Write[] }> {
  const row = await transferRow(s, tx, input)
  const writes = [
    write(outgoingRepo.insertNew(tx, row)),
    s.deps.jobs.enqueueWrite(
      tx,
      jobOf(row.purpose),
      { id: row.id },
      { runAt: row.createdAt, dedupeKey: runKey(row.id, 0) },
    ),
  ]
  logQueued(s, row)
  return { id: row.id, writes }
}

/** The transfer's row, its input checked (and its funding hold, which must reserve exactly it). */
async function transferRow(s: SenderContext, tx: Tx, input: EnqueueTransfer) {
  const { chain, clock, keys, ledger } = s.deps
  const coin = chain.coin(input.coin)
  if (typeof input.amount !== 'bigint' || input.amount <= 0n)
    throw new Error('outgoing amount must be a positive bigint')
  if (!isAddress(input.to, { strict: false })) throw new Error('outgoing destination is not an address')
  if (!input.key || input.key.length > 300) throw new Error('outgoing transfer needs a key')
  // Every transfer from a custodial address is reserved by exactly one pending ledger hold (its
  // value and what a success posts), which its outcome posts or voids; the platform signers send
  // from wallets outside the ledger.
  let fromAddress: string
  let fromOwnerId: string
  if (input.from.kind === 'platform') {
    fromAddress = platformSigner(chain, input.from.signer).address.toLowerCase()
    fromOwnerId = input.from.signer
    if (input.fundingHoldId) throw new Error('a platform signer sends off-ledger value: no funding hold')
  } else {
    const address = await keys.address(tx, input.from.kind, input.from.ownerId)
    if (!address) throw new Error(`no custodial key for ${input.from.kind} ${input.from.ownerId}`)
    if (!input.fundingHoldId) throw new Error('a custodial sender needs a funding hold')
    fromAddress = address
    fromOwnerId = input.from.ownerId
  }
  let fundingAccountId: string | undefined
  if (input.fundingHoldId) {
    // The hold must reserve exactly the value and be open: the outcome posts or voids exactly it.
    const hold = await ledger.getHold(tx, input.fundingHoldId)
    if (!hold || hold.coin !== coin.reference) throw new Error('funding hold of another coin')
    if (hold.status !== 'pending') throw new Error(`funding hold ${hold.id} is ${hold.status}`)
    // A hold with a timeout would void itself while the transaction can still be mined.
    if (hold.expiresAt) throw new Error(`funding hold ${hold.id} has a timeout`)
    // Exactly what a success posts: reconciliation checks every open transfer against it.
    if (hold.amount !== input.amount)
      throw new Error(`funding hold ${hold.id} reserves ${hold.amount}, the transfer sends ${input.amount}`)
    fundingAccountId = hold.accountId
  }
  const now = clock.now()
  return {
    id: newId(),
    chainId: s.chainKey,
    idempotencyKey: input.key,
    purpose: input.purpose,
    referenceId: input.referenceId,
    fromKind: input.from.kind as OutgoingFromKind,
    fromOwnerId,
    fromAddress,
    coin: coin.reference,
    toAddress: input.to.toLowerCase(),
    amount: input.amount.toString(),
    fundingAccountId: fundingAccountId ?? null,
    fundingHoldId: input.fundingHoldId ?? null,
    creditAccountId: input.creditAccountId ?? null,
    meta: JSON.stringify(input.meta ?? {}),
    createdAt: now,
    updatedAt: now,
  }
}

function logQueued(s: SenderContext, row: Awaited<ReturnType<typeof transferRow>>) {
  s.deps.log.info(logOf(row), 'outgoing transfer enqueued')
}

/** The dedupe key of a transfer's run number `seq` (one namespace for both kinds of runs). */
const runKey = (id: string, seq: number) => `${OUTGOING_JOB}:${id}:${seq}`

/** A transfer as its runs' jobs are scheduled: its id, and its purpose (the job's kind). */
export type Runnable = { id: string; purpose: string }

/** Queues the next run of a transfer; the sequence number keeps each run's dedupe key unique. */
export async function scheduleRun(s: SenderContext, ex: Executor, t: Runnable, seq: number, runAt: Date) {
  await s.deps.jobs.enqueue(ex, jobOf(t.purpose), { id: t.id }, { runAt, dedupeKey: runKey(t.id, seq) })
}

/** A transfer as its next scheduled run is found: also the sequence number of that run. */
export type Scheduled = Runnable & { wakeSeq: number }

/**
 * Runs `transfers` now (one statement, sent ahead): the run each has scheduled (its `wakeSeq`) is
 * made due now if it is still queued, so no later run is left behind to find the transfer settled.
 * Where a worker holds that run just then, it may be scheduling the transfer's next run a long
 * while away (`topUpWaitMs`): with a `cause`, a run of its own is queued, once per cause (the
 * dedupe key names it); without one, the held run is left to look for itself (a receipt it does
 * not find yet is looked for again within seconds). An extra run of a transfer is harmless; no
 * transfer row is locked here, which would order locks against the transfers' own runs.
 */
export async function wakeNow(s: SenderContext, tx: Tx, transfers: Scheduled[], cause?: string) {
  await s.deps.jobs.hasten(
    tx,
    transfers.map((t) => ({
      kind: jobOf(t.purpose),
      payload: { id: t.id },
      ...(cause === undefined ? {} : { dedupeKey: `${OUTGOING_JOB}:${t.id}:after:${cause}` }),
      current: runKey(t.id, t.wakeSeq),
    })),
    s.deps.clock.now(),
  )
}
