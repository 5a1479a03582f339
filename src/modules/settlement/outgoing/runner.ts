// One run of a transfer's job: prepare (fees, gas, a simulation) → reserve gas → take the nonce,
// sign and STORE the signed transaction (one database transaction) → broadcast → receipt →
// settle. Whatever step a worker dies after, the next run resumes from the stored state: a stored
// transaction is re-broadcast (broadcasting is idempotent) or its receipt found, never re-signed.
import { getAddress, type Hash, type Hex } from 'viem'
import { toChainError } from '../../../platform/chain/errors.ts'
import { ChainError } from '../../../platform/chain/types.ts'
import { scheduleRun } from './enqueue.ts'
import { TRANSFER_STARTED } from './events.ts'
import { reserveGas } from './gas.ts'
import { takeNonce } from './nonces.ts'
import { attemptFailed, settleWithReceipt } from './outcome.ts'
import { type OutgoingRow, outgoingRepo } from './repo.ts'
import { eventOf, report } from './report.ts'
import {
  isFinal,
  PermanentFailure,
  type PlatformSigner,
  type Prepared,
  platformSigner,
  type SenderContext,
  SimulatedCrash,
} from './types.ts'

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
  const { db, chain, clock } = s.deps
  if (row.status === 'queued') {
    // A coin halted by reconciliation (or a deep reorg) sends nothing new until an operator
    // resumes it; what was signed already is still followed to its receipt below.
    if (await s.deps.halts.isHalted(row.coin)) {
      await defer(s, row.id, HALT_RECHECK_MS)
      return
    }
    if (!row.startedAt) await markStarted(s, row.id)
    const prepared = await prepare(s, row)
    if (row.fromKind !== 'platform') {
      const reserved = await reserveGas(s, row, prepared.maxFee)
      if (!reserved) {
        await defer(s, row.id, s.options.gasWaitMs)
        return
      }
    }
    await s.crashPoint('before-sign', row.id)
    await sign(s, row.id, prepared)
    await s.crashPoint('after-sign', row.id)
    row = (await s.load(db, row.id))!
    if (isFinal(row.status)) return
  }
  // signed or sent: the stored transaction is the only one this transfer will ever have.
  const hash = row.txHash as Hash
  let receipt = await chain.getReceipt(hash)
  if (!receipt) {
    try {
      await chain.broadcast(row.raw as Hex)
    } catch (err) {
      const e = toChainError(err, 'broadcast')
      if (e.code === 'NONCE_TOO_LOW') {
        // The nonce went to another transaction; ours can never be mined unless it already was.
        receipt = await chain.getReceipt(hash)
        if (!receipt) throw new PermanentFailure('NONCE_TOO_LOW', 'the nonce was used by another transaction')
      } else throw e
    }
    if (row.status === 'signed') {
      await outgoingRepo.markSent(db, row.id, clock.now())
      s.deps.log.info(
        {
          transferId: row.id,
          purpose: row.purpose,
          referenceId: row.referenceId,
          txHash: hash,
          nonce: row.nonce,
        },
        'outgoing transfer broadcast',
      )
    }
    await s.crashPoint('after-broadcast', row.id)
  }
  receipt ??= await chain.waitForReceipt(hash, {
    timeoutMs: s.options.receiptTimeoutMs,
    pollMs: s.options.receiptPollMs,
  })
  await s.crashPoint('after-receipt', row.id)
  await settleWithReceipt(s, row.id, receipt)
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

/** Fees, gas limit and a simulation of the transfer (network only, nothing written). */
async function prepare(s: SenderContext, row: OutgoingRow): Promise<Prepared> {
  const { chain } = s.deps
  const coin = chain.coin(row.coin)
  const amount = BigInt(row.amount)
  const fees = await chain.estimateFees()
  let gas: bigint
  if (coin.isToken) {
    gas = await chain.estimateTransferGas(coin.reference, row.fromAddress, row.toAddress, amount)
  } else {
    gas = NATIVE_GAS
    // A contract recipient may need more than 21000 gas, or refuse the value: simulate it so a
    // refusal costs no gas.
    const code = await chain.client.getCode({ address: getAddress(row.toAddress) }).catch((err) => {
      throw toChainError(err, 'get code')
    })
    if (code && code !== '0x') {
      try {
        const estimate = await chain.client.estimateGas({
          account: getAddress(row.fromAddress),
          to: getAddress(row.toAddress),
          value: amount,
        })
        gas = (estimate * 12n) / 10n
      } catch (err) {
        const e = toChainError(err, 'estimate gas')
        if (e.code === 'UNAVAILABLE') throw e
        throw new ChainError('REJECTED', 'estimate gas: the recipient contract refuses the transfer', false)
      }
    }
  }
  const perGas = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
  return { fees, gas, maxFee: gas * perGas }
}

/** Takes the next nonce, signs, stores the signed transaction and registers it: one transaction. */
async function sign(s: SenderContext, id: string, prepared: Prepared) {
  const { chain, db, clock, wallets } = s.deps
  const row = (await s.load(db, id))!
  // Reconcile with the chain: nonces used outside the platform (after a key export) are skipped.
  const latest = await chain.getNonce(row.fromAddress, 'latest')
  await db.transaction().execute(async (tx) => {
    const current = await s.load(tx, id, true)
    if (current?.status !== 'queued') return
    const nonce = await takeNonce(s, tx, row.fromAddress, latest)
    const req = {
      coin: row.coin,
      to: row.toAddress,
      amount: BigInt(row.amount),
      nonce,
      gas: prepared.gas,
      fees: prepared.fees,
    }
    const signed =
      row.fromKind === 'platform'
        ? await platformSigner(chain, row.fromOwnerId as PlatformSigner).signTransfer(req)
        : await chain.signTransfer(await wallets.privateKey(tx, row.fromAddress), req)
    await outgoingRepo.markSigned(
      tx,
      id,
      {
        nonce,
        raw: signed.raw,
        txHash: signed.hash.toLowerCase(),
        gasLimit: signed.gas,
        maxFee: signed.maxFee,
      },
      clock.now(),
    )
    s.deps.log.info(
      {
        transferId: id,
        purpose: row.purpose,
        referenceId: row.referenceId,
        coin: row.coin,
        amount: row.amount,
        from: row.fromAddress,
        to: row.toAddress,
        nonce,
        txHash: signed.hash.toLowerCase(),
        maxFee: signed.maxFee.toString(),
      },
      'outgoing transfer signed',
    )
    await wallets.registerOutgoing(tx, {
      txHash: signed.hash,
      from: row.fromAddress,
      purpose: row.purpose,
      ...(row.creditAccountId ? { creditAccountId: row.creditAccountId } : {}),
    })
  })
}
