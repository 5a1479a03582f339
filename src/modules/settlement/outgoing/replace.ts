// Stuck transactions. A transaction not mined `stuckAfterMs` after it was signed (its fees too low
// for the chain now, or dropped by the nodes) is replaced: the same transfer, at the same nonce,
// with fees raised by at least what nodes require to accept a replacement (+12.5 % on
// maxFeePerGas, +10 % on maxPriorityFeePerGas, +12.5 % on a legacy gas price) and at least the
// current estimate. The schedule: a first replacement `stuckAfterMs` after the first signature,
// each next one `stuckAfterMs` after the one before, `maxReplacements` at most. The replacement is
// stored and registered before it is broadcast, exactly like the first; both stay on record, and
// whichever is mined settles the transfer. Only the address's lowest pending nonce is replaced: a
// later transaction waits for it, it is not stuck itself. Nothing is replaced in a halted coin,
// nor above the coin's maximum fee (the pending transaction then stays, broadcast again at each
// check, until the network fee falls).
import { type Hex, parseTransaction } from 'viem'
import type { Tx } from '../../../db/index.ts'
import type { FeeEstimate } from '../../../platform/chain/types.ts'
import { feeCapOf, perGasOf, priceNow, setFeeWait } from './fees.ts'
import { reserveGas } from './gas.ts'
import { type StoredTx, storedOf } from './receipts.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { signFor } from './sign.ts'
import type { SenderContext } from './types.ts'

/** `fee` raised by `permille` thousandths (rounded up), never by less than 1. */
function raise(fee: bigint, permille: bigint): bigint {
  const raised = (fee * (1000n + permille) + 999n) / 1000n
  return raised > fee ? raised : fee + 1n
}

/** A max fee per gas (or a legacy gas price) raised by the nodes' minimum for a replacement: 12.5 %. */
export const bump = (fee: bigint) => raise(fee, 125n)
/** A tip raised by the nodes' minimum for a replacement: 10 %. */
export const bumpTip = (fee: bigint) => raise(fee, 100n)

/** The fees of a replacement of a transaction signed with `old`, given the current estimate. */
export function replacementFees(old: FeeEstimate, now: FeeEstimate): FeeEstimate {
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  if (old.type === 'legacy') {
    const current = now.type === 'legacy' ? now.gasPrice : now.maxFeePerGas
    return { type: 'legacy', gasPrice: max(bump(old.gasPrice), current) }
  }
  const est =
    now.type === 'eip1559'
      ? now
      : { type: 'eip1559' as const, maxFeePerGas: now.gasPrice, maxPriorityFeePerGas: 0n }
  const priority = max(bumpTip(old.maxPriorityFeePerGas), est.maxPriorityFeePerGas)
  const maxFee = max(max(bump(old.maxFeePerGas), est.maxFeePerGas), priority)
  return { type: 'eip1559', maxFeePerGas: maxFee, maxPriorityFeePerGas: priority }
}

function feesOf(raw: Hex): FeeEstimate {
  const t = parseTransaction(raw)
  if (t.maxFeePerGas !== undefined && t.maxPriorityFeePerGas !== undefined)
    return { type: 'eip1559', maxFeePerGas: t.maxFeePerGas, maxPriorityFeePerGas: t.maxPriorityFeePerGas }
  return { type: 'legacy', gasPrice: t.gasPrice ?? 0n }
}

/** `raced`: another run replaced or settled the transfer first (nothing was stored); `capped`:
 * the replacement would pay more per gas than the coin's maximum (nothing was signed). */
export type ReplaceResult = 'replaced' | 'not-stuck' | 'wait' | 'exhausted' | 'raced' | 'capped'

/**
 * Replaces the transfer's current transaction when it is stuck. `wait`: the replacement needs more
 * gas than is parked at the address, and a top-up was asked for.
 */
export async function replaceIfStuck(
  s: SenderContext,
  row: OutgoingRow,
  opts: {
    /** an operator's "replace now": no need to wait `stuckAfterMs` */
    now?: boolean
    /** runs in the transaction that stores the replacement (e.g. the operator's audit row) */
    inTransaction?: (tx: Tx, txHash: string) => Promise<void>
    /** the transfer's stored transactions, when the run read them already */
    known?: { stored?: StoredTx[] | undefined }
  } = {},
): Promise<ReplaceResult> {
  const { db, chain, clock, log, watcher } = s.deps
  const stored = await storedOf(s, row, opts.known)
  const current = stored.find((t) => t.txHash === row.txHash)
  const since = current?.signedAt ?? row.signedAt ?? row.createdAt
  if (!opts.now && clock.now().getTime() - since.getTime() < s.options.stuckAfterMs) return 'not-stuck'
  // A replacement is a new signature: none in a halted coin (the stored transaction stays watched).
  if (await s.deps.halts.isHalted(row.coin)) return 'not-stuck'
  // An earlier nonce of the address still pending holds this one back: that one is the stuck one.
  if ((await chain.getNonce(row.fromAddress, 'latest')) !== Number(row.nonce)) return 'not-stuck'
  const replacements = Math.max(0, stored.length - 1)
  if (replacements >= s.options.maxReplacements) {
    log.error(
      { transferId: row.id, txHash: row.txHash, nonce: row.nonce, replacements },
      'outgoing transfer is still not mined after its last allowed replacement',
    )
    return 'exhausted'
  }
  const old = feesOf(row.raw as Hex)
  const estimate = await chain.estimateFees()
  const fees = replacementFees(old, estimate)
  const cap = feeCapOf(s, row.coin)
  if (cap !== undefined && perGasOf(fees) > cap) {
    await setFeeWait(s, row, { feePerGas: priceNow(estimate), maxFeePerGas: cap, step: 'replace' })
    return 'capped'
  }
  const gas = BigInt(row.gasLimit ?? 0)
  const maxFee = gas * perGasOf(fees)
  if (row.fromKind !== 'platform' && (await reserveGas(s, row, maxFee, { signed: true })) !== 'ok')
    return 'wait'

  const done = await db.transaction().execute(async (tx) => {
    const locked = await s.load(tx, row.id, true)
    // Another run replaced or settled it meanwhile.
    if (!locked || (locked.status !== 'signed' && locked.status !== 'sent') || locked.txHash !== row.txHash)
      return false
    const signed = await signFor(s, tx, locked, {
      coin: locked.coin,
      to: locked.toAddress,
      amount: BigInt(locked.amount),
      nonce: Number(locked.nonce),
      gas,
      fees,
    })
    const txHash = signed.hash.toLowerCase()
    const now = clock.now()
    const seq = Math.max(-1, ...stored.map((t) => t.seq)) + 1
    await outgoingRepo.addTransaction(
      tx,
      { transferId: row.id, seq, txHash, raw: signed.raw, maxFee: signed.maxFee },
      now,
    )
    await outgoingRepo.setCurrent(tx, row.id, { raw: signed.raw, txHash, maxFee: signed.maxFee }, now)
    await watcher.registerOwn(tx, {
      txHash,
      from: locked.fromAddress,
      purpose: locked.purpose,
      ...(locked.creditAccountId ? { creditAccountId: locked.creditAccountId } : {}),
    })
    const perGas = (f: FeeEstimate) =>
      f.type === 'eip1559'
        ? { maxFeePerGas: f.maxFeePerGas.toString(), maxPriorityFeePerGas: f.maxPriorityFeePerGas.toString() }
        : { gasPrice: f.gasPrice.toString() }
    log.warn(
      {
        transferId: row.id,
        purpose: row.purpose,
        referenceId: row.referenceId,
        coin: row.coin,
        amount: row.amount,
        from: row.fromAddress,
        nonce: row.nonce,
        replacedTxHash: row.txHash,
        txHash,
        replacement: seq,
        before: perGas(old),
        after: perGas(fees),
      },
      opts.now
        ? 'outgoing transfer replaced by an operator: sent again with higher fees'
        : 'outgoing transfer replaced: not mined in time, sent again with higher fees',
    )
    await opts.inTransaction?.(tx, txHash)
    return true
  })
  if (done) await setFeeWait(s, row, null)
  await s.crashPoint('after-replace', row.id)
  return done ? 'replaced' : 'raced'
}
