// Failed attempts and the settlement of a transfer. A transfer settles exactly once, in one
// database transaction under its row lock: its status, its gas, its funding hold (posted to the
// chain's clearing account on success, voided on failure), and the job that reports the outcome to
// the caller. A signed transaction that may still be mined is never
// reported failed: only a receipt, or its nonce taken by another transaction, ends it, so value is
// never released while it can still leave.
import type { Tx } from '../../../db/index.ts'
import { AppError } from '../../../http/errors.ts'
import { ChainError, type TransferReceipt } from '../../../platform/chain/types.ts'
import { receiptText } from '../watcher/fetch.ts'
import { scheduleRun, wakeNow } from './enqueue.ts'
import { TRANSFER_ATTEMPT_FAILED, TRANSFER_FAILED, TRANSFER_SETTLED } from './events.ts'
import { settleFunding } from './funding.ts'
import { AccountIds, bookGas } from './gas.ts'
import { lastTransaction } from './last-transaction.ts'
import { hashesOf, minedOf } from './receipts.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { eventOf, logOf, report, startIn } from './report.ts'
import {
  GAS_TOPUP_PURPOSE,
  isFinal,
  json,
  PermanentFailure,
  type RunState,
  type SenderContext,
} from './types.ts'

/** HTTP-like numeric status of a failure, for `responseData`. */
function statusOf(code: string): number {
  switch (code) {
    case 'UNAVAILABLE':
      return 503
    case 'INVALID_ARGUMENT':
    case 'UNKNOWN_COIN':
      return 400
    case 'NONCE_TOO_LOW':
      return 409
    default:
      return 422
  }
}

type Fate = 'unsigned' | 'mined' | 'dead' | 'unknown'

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0

/**
 * Records a failed attempt: retried with backoff, or final (settled as failed when safe). A
 * provider's transient trouble (unreachable, timing out, a lagging node: `ChainError.retryable`)
 * is recorded but never counted against `maxFailures`: the transfer waits for the chain (backoff
 * up to `transientMaxDelayMs`) however long it is away, as an exchange keeps a withdrawal queued.
 * Only the node's answers about the transfer itself (refused, reverted, invalid) count. The run's
 * last transaction (`run`).
 */
export async function attemptFailed(
  s: SenderContext,
  id: string,
  err: unknown,
  run?: RunState,
): Promise<boolean> {
  const { db, chain, clock, log } = s.deps
  const transient = err instanceof ChainError && err.retryable
  const permanent =
    err instanceof PermanentFailure ||
    (err instanceof ChainError && (err.code === 'INVALID_ARGUMENT' || err.code === 'UNKNOWN_COIN'))
  const code = err instanceof PermanentFailure ? err.code : err instanceof ChainError ? err.code : 'INTERNAL'
  const message =
    err instanceof ChainError || err instanceof PermanentFailure || err instanceof AppError
      ? err.message
      : 'internal error while sending'
  if (!(err instanceof ChainError || err instanceof PermanentFailure))
    log.error({ err, transferId: id }, 'outgoing transfer attempt failed unexpectedly')
  const row = await s.load(db, id)
  if (!row || isFinal(row.status)) return !!row
  const failures = row.failures + (transient ? 0 : 1)
  const final = !transient && (permanent || failures >= s.options.maxFailures)

  // A signed transaction may still be mined: only the chain can say it never will be.
  let fate: Fate = 'unsigned'
  let receipt: TransferReceipt | null = null
  if (row.status !== 'queued' && final) {
    try {
      const hashes = await hashesOf(s, row)
      receipt = await minedOf(s, row, hashes)
      if (receipt) fate = 'mined'
      else {
        const latest = await chain.getNonce(row.fromAddress, 'latest')
        // Another transaction took the nonce, and none of ours was mined (checked again after).
        fate = latest > Number(row.nonce) ? 'dead' : 'unknown'
        if (fate === 'dead') {
          receipt = await minedOf(s, row, hashes)
          if (receipt) fate = 'mined'
        }
      }
    } catch {
      fate = 'unknown'
    }
  }
  if (fate === 'mined') {
    await settleWithReceipt(s, id, receipt!, run)
    return true
  }

  return lastTransaction(s, run, async (tx) => {
    const current = await s.load(tx, id, true)
    if (!current || isFinal(current.status)) return !!current
    // The run failed before any write of its own marked the transfer started.
    if (run?.start && !current.startedAt) await startIn(s, tx, current)
    // `fate` was judged from a read outside this lock: a concurrent run may have signed (and
    // broadcast) the transfer since. Then it may still land, and only the chain can tell.
    const signedMeanwhile = fate === 'unsigned' && current.status !== 'queued'
    const settleNow = final && !signedMeanwhile && (fate === 'unsigned' || fate === 'dead')
    const now = clock.now()
    const seq = current.wakeSeq + 1
    await outgoingRepo.addFailure(tx, id, { failures, message, wakeSeq: seq }, now)
    const errors = [...(current.errors ?? []), message]
    const failed = { ...current, failures, errors }
    if (settleNow) {
      await settleFailure(s, tx, failed, { code, message, reason: 'failed', receipt: null })
      return true
    }
    // Every attempt is recorded on the transfer; the caller hears of a provider's outage on its
    // 1st, 2nd, 4th, 8th ... try only, so an outage of hours is a few reports, not one a minute.
    if (!transient || isPowerOfTwo(errors.length))
      await report(s, tx, TRANSFER_ATTEMPT_FAILED, {
        ...eventOf(current),
        attempt: errors.length,
        error: message,
      })
    s.deps.log.warn(
      {
        transferId: id,
        purpose: current.purpose,
        referenceId: current.referenceId,
        attempt: errors.length,
        counted: failures,
        transient,
        final,
        error: message,
      },
      'outgoing transfer attempt failed',
    )
    let delay = transient
      ? Math.min(s.options.baseDelayMs * 2 ** (errors.length - 1), s.options.transientMaxDelayMs)
      : Math.min(s.options.baseDelayMs * 2 ** (failures - 1), s.options.maxDelayMs)
    if (signedMeanwhile) delay = s.options.baseDelayMs
    else if (final) {
      // Retries are used up but the signed transaction may still land: keep watching it, and
      // leave the outcome to the chain (re-broadcast, receipt, or its nonce taken).
      delay = s.options.stuckRecheckMs
      log.error(
        { transferId: id, txHash: current.txHash, nonce: current.nonce, from: current.fromAddress },
        'outgoing transfer is signed but neither mined nor replaced; it stays open until the chain decides',
      )
    }
    await scheduleRun(s, tx, current, seq, new Date(now.getTime() + delay))
    return false
  })
}

/** Settles a mined transfer: completed (value and gas booked) or, when reverted, failed (gas booked);
 * the run's last transaction (`run`). */
export async function settleWithReceipt(
  s: SenderContext,
  id: string,
  receipt: TransferReceipt,
  run?: RunState,
) {
  const { clock, log } = s.deps
  const text = receiptText(receipt)
  let ids: AccountIds | undefined
  await lastTransaction(s, run, async (tx) => {
    const locked = await s.load(tx, id, true)
    if (!locked || isFinal(locked.status)) return
    const now = clock.now()
    // The mined transaction (the first or a replacement) is the transfer's; the others replaced.
    const txHash = receipt.hash.toLowerCase()
    await outgoingRepo.markMined(tx, id, txHash, now, locked.txHash)
    const row = { ...locked, txHash }
    // The chain's clearing account of each coin, asked for once (gas and value may share it).
    ids = new AccountIds(s, tx)
    const clearingOf = ids.clearing
    await bookGas(s, tx, row, receipt.fee, clearingOf)
    await wakeLaterNonces(s, tx, row)
    if (receipt.status === 'success') {
      // The value out of the funding hold to the chain.
      const { valueTransferId } = await settleFunding(s, tx, row, 'completed', clearingOf)
      await outgoingRepo.markCompleted(tx, id, text, now)
      await wakeGasWaiters(s, tx, row)
      await report(s, tx, TRANSFER_SETTLED, {
        ...eventOf(row),
        txHash,
        gasUsed: receipt.gasUsed.toString(),
        responseData: text,
        valueTransferId,
      })
      log.info(
        {
          ...logOf(row),
          txHash,
          blockNumber: receipt.blockNumber.toString(),
          gasUsed: receipt.gasUsed.toString(),
          gasFee: receipt.fee.toString(),
        },
        'outgoing transfer confirmed',
      )
      return
    }
    const message = 'the transaction was mined but reverted'
    const failures = row.failures + 1
    await outgoingRepo.addFailure(tx, id, { failures, message }, now)
    await settleFailure(
      s,
      tx,
      { ...row, failures, errors: [...(row.errors ?? []), message] },
      {
        code: 'REVERTED',
        message,
        reason: 'reverted',
        receipt: text,
      },
    )
  })
  ids?.keep()
}

/** Settles a transfer as failed for good: its gas reservation back (when nothing was mined), its
 * funding hold voided, and the failure reported. `row` counts the last attempt. The
 * caller holds the transfer's row lock and has checked that nothing of it can still be mined. */
export async function settleFailure(
  s: SenderContext,
  tx: Tx,
  row: OutgoingRow,
  f: { code: string; message: string; reason: 'failed' | 'reverted'; receipt: string | null },
) {
  if (f.reason === 'failed') {
    // Nothing was mined: the whole gas reservation goes back, and what was signed is dead.
    await bookGas(s, tx, row, 0n)
    await outgoingRepo.markReplaced(tx, row.id)
    if (row.nonce !== null) await wakeLaterNonces(s, tx, row)
  }
  const errors = row.errors ?? []
  const error = {
    error: true,
    status: statusOf(f.code),
    message: f.message,
    data: {
      code: f.code,
      reason: f.reason,
      attempts: row.failures,
      errors,
      ...(f.reason === 'reverted' ? { txHash: row.txHash, receipt: JSON.parse(f.receipt!) } : {}),
    },
  }
  // The funding hold voided: nothing left the funding.
  await settleFunding(s, tx, row, 'failed')
  await outgoingRepo.markFailed(tx, row.id, json(error), f.receipt, s.deps.clock.now())
  await wakeGasWaiters(s, tx, row)
  const txHash = f.reason === 'reverted' ? row.txHash : null
  await report(s, tx, TRANSFER_FAILED, {
    ...eventOf(row),
    attempt: row.failures,
    error: f.message,
    code: f.code,
    reverted: f.reason === 'reverted',
    txHash,
    responseData: json(error),
  })
  s.deps.log.warn(
    {
      ...logOf(row),
      txHash,
      code: f.code,
      attempts: row.failures,
    },
    'outgoing transfer failed',
  )
}

/**
 * The transaction of the same address at the next later nonce could not be mined before this one:
 * its next scheduled check is made due now, and it wakes the one after it when it settles, and so
 * on. A run of it that a worker holds just then looks for its receipt itself (and checks again
 * within seconds), so none is added. (Its row is not locked here, which would order locks against
 * its own runs.)
 */
async function wakeLaterNonces(s: SenderContext, tx: Tx, row: OutgoingRow) {
  const later = await outgoingRepo.nextSignedAfter(tx, s.chainKey, row.fromAddress, Number(row.nonce))
  if (later) await wakeNow(s, tx, [later])
}

/**
 * A gas top-up settled (landed, reverted or failed): the transfers of the address it tops up that
 * still wait for gas (the 500 oldest; any others at their next check) run now instead of at their
 * next check (`topUpWaitMs` away). Each finds the credit and signs, asks the watcher to credit it,
 * or, after a failed top-up, counts a failed attempt and asks for another.
 */
async function wakeGasWaiters(s: SenderContext, tx: Tx, row: OutgoingRow) {
  if (row.purpose !== GAS_TOPUP_PURPOSE) return
  const waiting = await outgoingRepo.waitingForGas(tx, s.chainKey, row.referenceId)
  await wakeNow(s, tx, waiting, row.id)
}
