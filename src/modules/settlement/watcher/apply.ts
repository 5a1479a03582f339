// Writes what a range meant, in the caller's one transaction: each movement once in chain_events,
// its ledger transfer (chain clearing ↔ the owner's account), the user's transaction record, and
// for a credited deposit the `deposit.credited` job that reports it. A movement of a halted coin
// is parked instead (recorded, nothing booked) and applied once the coin is resumed. Everything
// that needs the network (receipts, USD rates) was read before the transaction (`prepare`).
import type { Logger } from 'pino'
import type { Tx } from '../../../db/index.ts'
import type { ChainAdapter, TransferReceipt } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import { formatUnits } from '../../../platform/money/index.ts'
import type { Ledger, OpenAccountKind } from '../../ledger/types.ts'
import type { TransactionService } from '../../transactions/types.ts'
import { receiptText } from './fetch.ts'
import { type EventKey, watcherRepo } from './repo.ts'
import { DEPOSIT_CREDITED_JOB, type DepositCredited, type Movement } from './types.ts'

export interface ApplyContext {
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  ledger: Ledger
  transactions: TransactionService
}

/** What the transaction needs from the network, read before it opens. */
export interface Prepared {
  /** `responseData` of user records, by transaction hash */
  receipts: Map<string, string>
  /** USD rates of user records, by coin (null: none could be had) */
  rates: Map<string, string | null>
}

export interface Applied {
  /** movements recorded for the first time (credited, debited or parked) */
  applied: number
  /** deposits credited, for the log */
  credited: DepositCredited[]
  /** movements parked because their coin is halted */
  parked: number
}

const KIND_OF_OWNER: Record<Movement['custodial']['ownerKind'], OpenAccountKind> = {
  user: 'user',
  escrow: 'escrow',
  treasury: 'treasury',
}

/** A movement the user sees as a transaction: at a user's address, not signed by the platform. */
const userRecord = (m: Movement) => m.custodial.ownerKind === 'user' && !m.own

const keyOf = (chainId: string, m: Movement): EventKey => ({
  chainId,
  txHash: m.txHash,
  logIndex: m.logIndex,
  kind: m.kind,
  address: m.address,
})

/** Receipt texts and rates for the user records of `movements` (receipts read when not given). */
export async function prepare(
  ctx: ApplyContext,
  movements: Movement[],
  known: ReadonlyMap<string, TransferReceipt> = new Map(),
): Promise<Prepared> {
  const out: Prepared = { receipts: new Map(), rates: new Map() }
  for (const m of movements) {
    if (!userRecord(m)) continue
    if (!out.receipts.has(m.txHash)) {
      const r = known.get(m.txHash) ?? (await ctx.chain.getReceipt(m.txHash as `0x${string}`))
      out.receipts.set(m.txHash, r ? receiptText(r) : JSON.stringify({ transactionHash: m.txHash }))
    }
    if (!out.rates.has(m.coin)) out.rates.set(m.coin, await ctx.transactions.rateOf(m.coin))
  }
  return out
}

/** New movements of a range: recorded once each; booked, or parked when their coin is halted. */
export async function applyMovements(
  tx: Tx,
  ctx: ApplyContext,
  input: { movements: Movement[]; halted: ReadonlySet<string>; prepared: Prepared },
): Promise<Applied> {
  const chainId = String(ctx.chain.chainId)
  const now = ctx.clock.now()
  const out: Applied = { applied: 0, credited: [], parked: 0 }
  for (const m of input.movements) {
    const parked = input.halted.has(m.coin)
    if (!(await watcherRepo.insertEvent(tx, chainId, m, now, parked))) continue
    out.applied++
    if (parked) {
      out.parked++
      continue
    }
    const credited = await book(tx, ctx, m, input.prepared)
    if (credited) out.credited.push(credited)
  }
  return out
}

/** Parked movements of resumed coins: booked now, each once. */
export async function applyParked(
  tx: Tx,
  ctx: ApplyContext,
  input: { movements: Movement[]; prepared: Prepared },
): Promise<Applied> {
  const chainId = String(ctx.chain.chainId)
  const out: Applied = { applied: 0, credited: [], parked: 0 }
  for (const m of input.movements) {
    if (!(await watcherRepo.unpark(tx, keyOf(chainId, m)))) continue
    out.applied++
    const credited = await book(tx, ctx, m, input.prepared)
    if (credited) out.credited.push(credited)
  }
  return out
}

/** The movement's ledger transfer, user record, outcome and report. */
async function book(
  tx: Tx,
  ctx: ApplyContext,
  m: Movement,
  prepared: Prepared,
): Promise<DepositCredited | null> {
  const { ledger, transactions, chain, log, jobs } = ctx
  const chainId = String(chain.chainId)
  const clearing = await ledger.ensureAccount(tx, 'chain', chainId, m.coin)
  // A registered credit account of another coin is a caller's mistake: credit the owner.
  const credit = m.creditAccountId ? await ledger.account(tx, m.creditAccountId) : undefined
  if (m.creditAccountId && credit?.coin !== m.coin)
    log.error(
      { txHash: m.txHash, creditAccountId: m.creditAccountId },
      'credit account of another coin ignored',
    )
  const owner =
    (credit?.coin === m.coin ? credit.id : undefined) ??
    (await ledger.ensureAccount(tx, KIND_OF_OWNER[m.custodial.ownerKind], m.custodial.ownerId, m.coin))
  let amount = m.amount
  if (m.kind !== 'deposit') {
    if (!m.custodial.exportedAt)
      log.error(
        { chainId: chain.chainId, txHash: m.txHash, address: m.address, ownerKind: m.custodial.ownerKind },
        'value left a custodial address in a transaction the platform did not sign, and its key was never exported',
      )
    const available = (await ledger.account(tx, owner, { forUpdate: true }))?.available ?? 0n
    if (available < amount) {
      log.error(
        { txHash: m.txHash, address: m.address, coin: m.coin, onChain: amount, inLedger: available },
        'external withdrawal larger than the ledger balance; debiting what the ledger holds',
      )
      amount = available
    }
  }
  let transferId: string | null = null
  if (amount > 0n) {
    const legs =
      m.kind === 'deposit'
        ? [
            { account: clearing, amount: -amount },
            { account: owner, amount },
          ]
        : [
            { account: owner, amount: -amount },
            { account: clearing, amount },
          ]
    const key = `chain:${chainId}:${m.txHash}:${m.logIndex}:${m.kind}:${m.address}`
    transferId = (await ledger.transfer(tx, { key, coin: m.coin, legs, kind: `chain.${m.kind}` })).id
  }
  let transactionId: string | null = null
  if (userRecord(m)) {
    const coin = chain.coin(m.coin)
    const text = formatUnits(m.amount, coin.decimals)
    const rec = await transactions.record(tx, {
      ownerId: m.custodial.ownerId,
      coin: m.coin,
      amount: m.amount,
      type: m.kind === 'deposit' ? 'deposit' : 'withdrawal',
      method: 'transfer',
      status: 'completed',
      description:
        m.kind === 'deposit'
          ? `Deposit of ${text} ${coin.symbol}`
          : m.kind === 'fee'
            ? `Network fee of ${text} ${coin.symbol} for a transfer signed outside the platform`
            : `Transfer of ${text} ${coin.symbol} signed outside the platform`,
      txInfo: { senderAddress: m.from, receiverAddress: m.to ?? '', asset: coin.symbol, amount: text },
      isFee: m.kind === 'fee',
      ...(m.kind === 'deposit' ? {} : { isExternal: true }),
      responseData: prepared.receipts.get(m.txHash) ?? '',
      transferId,
      txHash: m.txHash,
      rate: prepared.rates.get(m.coin) ?? null,
    })
    transactionId = rec.id
  }
  const accountId = m.kind === 'deposit' && transferId ? owner : null
  await watcherRepo.setOutcome(tx, keyOf(chainId, m), { transferId, transactionId, accountId })
  if (m.kind !== 'deposit' || !transferId) return null
  const report: DepositCredited = {
    chainId: chain.chainId,
    transferId,
    txHash: m.txHash,
    logIndex: m.logIndex,
    coin: m.coin,
    address: m.address,
    ownerKind: m.custodial.ownerKind,
    ownerId: m.custodial.ownerId,
    accountId: owner,
    amount: m.amount.toString(),
    blockNumber: m.blockNumber.toString(),
    transactionId,
  }
  await jobs.enqueue(tx, DEPOSIT_CREDITED_JOB, report, { dedupeKey: `${DEPOSIT_CREDITED_JOB}:${transferId}` })
  return report
}

/** A parked movement as `insertEvent` stored it. */
export function parkedMovement(held: Record<string, unknown>): Movement {
  const h = held as Record<string, any>
  return {
    ...(h as Movement),
    amount: BigInt(h.amount),
    blockNumber: BigInt(h.blockNumber),
    custodial: {
      ...h.custodial,
      exportedAt: h.custodial.exportedAt ? new Date(h.custodial.exportedAt) : null,
    },
  }
}

/** One info line per credited deposit, and a warning when movements were parked. */
export function logApplied(log: Logger, chainId: number, result: Applied | undefined) {
  if (!result) return
  for (const d of result.credited)
    log.info(
      {
        event: 'deposit.credited',
        chainId: d.chainId,
        transferId: d.transferId,
        txHash: d.txHash,
        logIndex: d.logIndex,
        coin: d.coin,
        amount: d.amount,
        address: d.address,
        ownerKind: d.ownerKind,
        ownerId: d.ownerId,
        accountId: d.accountId,
        transactionId: d.transactionId,
      },
      'deposit credited',
    )
  if (result.parked > 0)
    log.warn(
      { event: 'movements.parked', chainId, count: result.parked },
      'chain movements of halted coins parked until they are resumed',
    )
}
