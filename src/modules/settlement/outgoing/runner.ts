// One run of a transfer's job: prepare (fees, gas, a simulation) → reserve gas → take the nonce,
// sign and STORE the signed transaction (one database transaction) → broadcast → receipt →
// settle. Whatever step a worker dies after, the next run resumes from the stored state: a stored
// transaction is re-broadcast (broadcasting is idempotent) or its receipt found, never re-signed.
// A run never waits for the chain: when the receipt is not there yet, it schedules the next check
// of the transfer a few seconds later (`nextCheckDelay`) and ends, freeing its worker slot. Each
// check broadcasts the stored transaction again (a broadcast a node swallowed is sent again at the
// next check) and replaces it when it is stuck.
import type { Hex } from 'viem'
import { toChainError } from '../../../platform/chain/errors.ts'
import type { TransferReceipt } from '../../../platform/chain/types.ts'
import type { JobContext } from '../../../platform/jobs/queue.ts'
import { scheduleRun } from './enqueue.ts'
import { feeCapOf, perGasOf, priceNow, setFeeWait, underCap } from './fees.ts'
import { reserveGas } from './gas.ts'
import { lastTransaction, UnfinishedRun } from './last-transaction.ts'
import { attemptFailed, settleWithReceipt } from './outcome.ts'
import { minedOf, nextCheckDelay, type StoredTx } from './receipts.ts'
import { replaceIfStuck } from './replace.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { startIn } from './report.ts'
import { signFirst } from './sign.ts'
import {
  GAS_TOPUP_PURPOSE,
  isFinal,
  PermanentFailure,
  type Prepared,
  type RunState,
  type SenderContext,
  SimulatedCrash,
} from './types.ts'

const NATIVE_GAS = 21_000n
/** how often a transfer of a halted coin looks again */
const HALT_RECHECK_MS = 60_000

/**
 * Advances a transfer as far as it can go now; a failure is recorded as a failed attempt. A run of
 * the `outgoing.send` job (`job`) records the job done in its last transaction.
 */
export async function runTransfer(
  s: SenderContext,
  id: string,
  job?: Pick<JobContext, 'finishIn'>,
): Promise<void> {
  const found = await outgoingRepo.loadForRun(s.deps.db, id, GAS_TOPUP_PURPOSE)
  if (!found || isFinal(found.status)) return
  const { toppingUp, ...row } = found
  const run: RunState = { id, start: false, finishIn: job && ((tx) => job.finishIn(tx)) }
  let settled: boolean
  try {
    settled = await advance(s, row, run, Boolean(toppingUp))
  } catch (err) {
    if (err instanceof SimulatedCrash) throw err
    settled = await attemptFailed(s, id, err, run)
  }
  if (run.unfinished) throw new UnfinishedRun(id)
  if (settled) await s.crashPoint('after-settle', id)
}

/** Runs the transfer's steps from its stored state; true when it ended settled (by this run or
 * another). `toppingUp`: a gas top-up to its sending address is open. */
async function advance(
  s: SenderContext,
  first: OutgoingRow,
  run: RunState,
  toppingUp: boolean,
): Promise<boolean> {
  let row = first
  // The transfer's stored transactions, read at most once in the run.
  const known: { stored?: StoredTx[] | undefined } = {}
  let fresh = false
  if (row.status === 'queued') {
    // A coin halted by reconciliation (or a deep reorg) sends nothing new until an operator
    // resumes it; what was signed already is still followed to its receipt below.
    if (await s.deps.halts.isHalted(row.coin)) return defer(s, row, HALT_RECHECK_MS, run)
    run.start = !row.startedAt
    // Its address waits for a gas top-up: nothing is worth preparing (fees, a simulation) before
    // it lands, and the top-up's settlement wakes the transfer.
    if (toppingUp && row.fromKind !== 'platform' && BigInt(row.gasReserved) === 0n)
      return defer(s, row, s.options.topUpWaitMs, run)
    const prepared = await prepare(s, row)
    if (!prepared) return defer(s, row, s.options.feeRecheckMs, run)
    // Gas reserved by an earlier run (that died before signing) is not reserved again.
    if (row.fromKind !== 'platform' && BigInt(row.gasReserved) < prepared.maxFee) {
      const reserved = await reserveGas(s, row, prepared.maxFee, { gas: prepared.gas, run })
      // Waiting for a top-up: its settlement wakes the transfer (the delay bounds a missed wake).
      if (reserved !== 'ok')
        return defer(s, row, reserved === 'wait' ? s.options.topUpWaitMs : s.options.gasWaitMs, run)
    }
    // Reconcile with the chain: nonces used outside the platform (after a key export) are skipped.
    const latest = await s.deps.chain.getNonce(row.fromAddress, 'latest')
    await s.crashPoint('before-sign', row.id)
    const signed = await signFirst(s, row, prepared, latest, run)
    // Another run signed or settled it first: that run goes on with it.
    if (!signed) return isFinal((await s.load(s.deps.db, row.id))?.status ?? 'completed')
    row = signed
    known.stored = [{ seq: 0, txHash: row.txHash!, signedAt: row.signedAt! }]
    fresh = true
    await s.crashPoint('after-sign', row.id)
  }
  // Signed: from here on only the stored transactions (the first, and replacements at the same
  // nonce) are ever broadcast; nothing is signed at a new nonce again. A transaction this run
  // signed was never broadcast: there is no receipt to look for before broadcasting it.
  let receipt = fresh ? null : await minedOf(s, row, undefined, known)
  if (!receipt) {
    // After a first broadcast (or a replacement's) the chain may have mined it at once: look again.
    let lookAgain = row.status === 'signed'
    receipt = await broadcastCurrent(s, row, known, run)
    if (!receipt && !fresh) {
      const replaced = await replaceIfStuck(s, row, { known })
      // No longer held back by the coin's maximum (a replacement clears it itself).
      if (replaced !== 'capped' && replaced !== 'replaced' && row.waitingForFee?.step === 'replace')
        await setFeeWait(s, row, null)
      if (replaced === 'wait') return defer(s, row, s.options.gasWaitMs, run)
      if (replaced === 'replaced' || replaced === 'raced') {
        row = (await s.load(s.deps.db, row.id))!
        known.stored = undefined
        if (isFinal(row.status)) return true
        receipt = await broadcastCurrent(s, row, known, run)
        lookAgain = true
      }
    }
    if (!receipt && lookAgain) receipt = await minedOf(s, row, undefined, known)
    if (!receipt) {
      // Pending: not a failed attempt. Checked again soon (and replaced once it is stuck).
      return defer(s, row, await nextCheckDelay(s, row, known), run)
    }
  }
  await s.crashPoint('after-receipt', row.id)
  await settleWithReceipt(s, row.id, receipt, run)
  return true
}

/**
 * Broadcasts the transfer's current stored transaction (idempotent: a node that knows it, or a
 * chain that mined it, is a success). Returns a receipt when the nonce is taken and one of the
 * transfer's own transactions took it; throws when another transaction took it. The first
 * broadcast of a signed transfer is recorded by the run's last transaction (`run.sentAt`).
 */
async function broadcastCurrent(
  s: SenderContext,
  row: OutgoingRow,
  known: { stored?: StoredTx[] | undefined },
  run: RunState,
): Promise<TransferReceipt | null> {
  const { chain, clock, log } = s.deps
  try {
    await chain.broadcast(row.raw as Hex)
  } catch (err) {
    const e = toChainError(err, 'broadcast')
    if (e.code !== 'NONCE_TOO_LOW') throw e
    // The nonce is taken: by one of ours (then it settles the transfer), or by another transaction.
    const receipt = await minedOf(s, row, undefined, known)
    if (!receipt) throw new PermanentFailure('NONCE_TOO_LOW', 'the nonce was used by another transaction')
    return receipt
  }
  if (row.status === 'signed' && !run.sentAt) {
    run.sentAt = clock.now()
    log.info(
      {
        transferId: row.id,
        purpose: row.purpose,
        referenceId: row.referenceId,
        txHash: row.txHash,
        nonce: row.nonce,
      },
      'outgoing transfer broadcast',
    )
  }
  await s.crashPoint('after-broadcast', row.id)
  return null
}

/** Runs the transfer again after `delayMs` (a new job under the next sequence number), marking
 * its start when `run` still has it to mark; the run's last transaction. False: the transfer is
 * open; true: it was settled meanwhile. */
async function defer(s: SenderContext, row: OutgoingRow, delayMs: number, run: RunState): Promise<boolean> {
  const settled = await lastTransaction(s, run, async (tx) => {
    const now = s.deps.clock.now()
    const seq = await outgoingRepo.nextWake(tx, row.id, now)
    if (seq === undefined) return true
    if (run.start) await startIn(s, tx, row)
    await scheduleRun(s, tx, row, seq, new Date(now.getTime() + delayMs))
    return false
  })
  if (!settled) run.start = false
  return settled
}

/**
 * Fees (under the coin's maximum), gas limit and a simulation of the transfer (network only; the
 * transfer's fee wait is recorded). Undefined while the network asks more than the coin's maximum.
 */
async function prepare(s: SenderContext, row: OutgoingRow): Promise<Prepared | undefined> {
  const { chain } = s.deps
  const coin = chain.coin(row.coin)
  const amount = BigInt(row.amount)
  const estimate = await chain.estimateFees()
  const cap = feeCapOf(s, row.coin)
  const fees = underCap(estimate, cap)
  if (!fees) {
    await setFeeWait(s, row, { feePerGas: priceNow(estimate), maxFeePerGas: cap!, step: 'sign' })
    return undefined
  }
  await setFeeWait(s, row, null)
  let gas: bigint
  if (coin.isToken) {
    gas = await chain.estimateTransferGas(coin.reference, row.fromAddress, row.toAddress, amount)
  } else {
    gas = NATIVE_GAS
    // A contract recipient may need more than 21000 gas, or refuse the value: simulate it so a
    // refusal costs no gas.
    if (await chain.isContract(row.toAddress))
      gas = ((await chain.estimateValueGas(row.fromAddress, row.toAddress, amount)) * 12n) / 10n
  }
  return { fees, gas, maxFee: gas * perGasOf(fees) }
}
