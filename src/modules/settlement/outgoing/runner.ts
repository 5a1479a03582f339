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
import { scheduleRun } from './enqueue.ts'
import { TRANSFER_STARTED } from './events.ts'
import { feeCapOf, perGasOf, priceNow, setFeeWait, underCap } from './fees.ts'
import { reserveGas } from './gas.ts'
import { attemptFailed, settleWithReceipt } from './outcome.ts'
import { minedOf, nextCheckDelay } from './receipts.ts'
import { replaceIfStuck } from './replace.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { eventOf, report } from './report.ts'
import { signFirst } from './sign.ts'
import { isFinal, PermanentFailure, type Prepared, type SenderContext, SimulatedCrash } from './types.ts'

const NATIVE_GAS = 21_000n
/** how often a transfer of a halted coin looks again */
const HALT_RECHECK_MS = 60_000

/** Advances a transfer as far as it can go now; a failure is recorded as a failed attempt. */
export async function runTransfer(s: SenderContext, id: string): Promise<void> {
  const row = await s.load(s.deps.db, id)
  if (!row || isFinal(row.status)) return
  try {
    await advance(s, row)
  } catch (err) {
    if (err instanceof SimulatedCrash) throw err
    await attemptFailed(s, id, err)
  }
  const after = await s.load(s.deps.db, id)
  if (after && isFinal(after.status)) await s.crashPoint('after-settle', id)
}

async function advance(s: SenderContext, first: OutgoingRow) {
  let row = first
  const { db } = s.deps
  if (row.status === 'queued') {
    // A coin halted by reconciliation (or a deep reorg) sends nothing new until an operator
    // resumes it; what was signed already is still followed to its receipt below.
    if (await s.deps.halts.isHalted(row.coin)) {
      await defer(s, row.id, HALT_RECHECK_MS)
      return
    }
    if (!row.startedAt) await markStarted(s, row.id)
    const prepared = await prepare(s, row)
    if (!prepared) {
      await defer(s, row.id, s.options.feeRecheckMs)
      return
    }
    if (row.fromKind !== 'platform') {
      const reserved = await reserveGas(s, row, prepared.maxFee)
      if (!reserved) {
        await defer(s, row.id, s.options.gasWaitMs)
        return
      }
    }
    await s.crashPoint('before-sign', row.id)
    await signFirst(s, row.id, prepared)
    await s.crashPoint('after-sign', row.id)
    row = (await s.load(db, row.id))!
    if (isFinal(row.status)) return
  }
  // Signed: from here on only the stored transactions (the first, and replacements at the same
  // nonce) are ever broadcast; nothing is signed at a new nonce again.
  let receipt = await minedOf(s, row)
  if (!receipt) {
    // After a first broadcast (or a replacement's) the chain may have mined it at once: look again.
    let lookAgain = row.status === 'signed'
    receipt = await broadcastCurrent(s, row)
    if (!receipt) {
      const replaced = await replaceIfStuck(s, row)
      // No longer held back by the coin's maximum (a replacement clears it itself).
      if (replaced !== 'capped' && replaced !== 'replaced' && row.waitingForFee?.step === 'replace')
        await setFeeWait(s, row, null)
      if (replaced === 'wait') {
        await defer(s, row.id, s.options.gasWaitMs)
        return
      }
      if (replaced === 'replaced' || replaced === 'raced') {
        row = (await s.load(db, row.id))!
        if (isFinal(row.status)) return
        receipt = await broadcastCurrent(s, row)
        lookAgain = true
      }
    }
    if (!receipt && lookAgain) receipt = await minedOf(s, row)
    if (!receipt) {
      // Pending: not a failed attempt. Checked again soon (and replaced once it is stuck).
      await defer(s, row.id, await nextCheckDelay(s, row))
      return
    }
  }
  await s.crashPoint('after-receipt', row.id)
  await settleWithReceipt(s, row.id, receipt)
}

/**
 * Broadcasts the transfer's current stored transaction (idempotent: a node that knows it, or a
 * chain that mined it, is a success). Returns a receipt when the nonce is taken and one of the
 * transfer's own transactions took it; throws when another transaction took it.
 */
async function broadcastCurrent(s: SenderContext, row: OutgoingRow): Promise<TransferReceipt | null> {
  const { chain, db, clock, log } = s.deps
  try {
    await chain.broadcast(row.raw as Hex)
  } catch (err) {
    const e = toChainError(err, 'broadcast')
    if (e.code !== 'NONCE_TOO_LOW') throw e
    // The nonce is taken: by one of ours (then it settles the transfer), or by another transaction.
    const receipt = await minedOf(s, row)
    if (!receipt) throw new PermanentFailure('NONCE_TOO_LOW', 'the nonce was used by another transaction')
    return receipt
  }
  if (row.status === 'signed') {
    await outgoingRepo.markSent(db, row.id, clock.now())
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

async function markStarted(s: SenderContext, id: string) {
  await s.deps.db.transaction().execute(async (tx) => {
    const row = await s.load(tx, id, true)
    if (!row || row.startedAt || isFinal(row.status)) return
    await outgoingRepo.markStarted(tx, id, s.deps.clock.now())
    await report(s, tx, TRANSFER_STARTED, eventOf(row))
  })
}

/** Runs the transfer again after `delayMs` (a new job under the next sequence number). */
async function defer(s: SenderContext, id: string, delayMs: number) {
  await s.deps.db.transaction().execute(async (tx) => {
    const row = await s.load(tx, id, true)
    if (!row || isFinal(row.status)) return
    const seq = row.wakeSeq + 1
    const now = s.deps.clock.now()
    await outgoingRepo.setWakeSeq(tx, id, seq, now)
    await scheduleRun(s, tx, id, seq, new Date(now.getTime() + delayMs))
  })
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
