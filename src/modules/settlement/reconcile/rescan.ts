// Self-healing drift: when reconciliation finds more on chain at an address than its ledger
// holds, this job reads that address's history again, from its last credited deposit up to the
// watcher's cursor (the token Transfer logs to it and, for the native coin, the value sent to it),
// and credits what the watcher missed, exactly as the watcher would: the same movements, the same
// chain_events key, so a deposit is credited once whoever finds it first. Then it asks
// reconciliation to check again; what is still unexplained halts the coin there.
import type { Logger } from 'pino'
import type { Database } from '../../../db/index.ts'
import type { ChainAdapter, ChainBlock, TokenTransfer } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { TransactionService } from '../../transactions/types.ts'
import { type ApplyContext, applyMovements, logApplied, prepare } from '../watcher/apply.ts'
import { classify, receiptsNeeded } from '../watcher/classify.ts'
import { fetchReceipts } from '../watcher/fetch.ts'
import { creditPlatformGas } from '../watcher/platform-gas.ts'
import { watcherRepo } from '../watcher/repo.ts'
import type { FetchedRange } from '../watcher/types.ts'
import type { Halts } from './halts.ts'
import { reconcileRepo } from './repo.ts'

export const RESCAN_JOB = 'settlement.rescan'

/**
 * An address and coin whose chain balance exceeded the ledger (drift in base units), or that an
 * operator asked to read again over a block range (`fromBlock`..`toBlock`, decimal, inclusive;
 * never past the watcher's cursor).
 */
export interface RescanTarget {
  address: string
  coin: string
  drift: string
  fromBlock?: string
  toBlock?: string
}

declare module '../../../platform/jobs/queue.ts' {
  interface JobPayloads {
    /** the addresses a reconciliation run found with more on chain than in the ledger */
    'settlement.rescan': { chainId: number; runId: string; targets: RescanTarget[] }
  }
}

export interface RescanOptions {
  /** token logs are read at most this many blocks back from the cursor */
  lookbackBlocks: number
  /** blocks read one by one for native value, at most (the newest before the cursor) */
  nativeLookbackBlocks: number
}

export const DEFAULT_RESCAN_OPTIONS: RescanOptions = { lookbackBlocks: 100_000, nativeLookbackBlocks: 2_000 }

export interface RescanDeps {
  database: Database
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  halts: Halts
  ledger: Ledger
  transactions: TransactionService
}

export interface RescanResult {
  /** deposits credited (or parked, for a halted coin) that the watcher had missed */
  found: { address: string; coin: string; txHash: string; logIndex: number; amount: string }[]
}

const max = (a: bigint, b: bigint) => (a > b ? a : b)
const min = (a: bigint, b: bigint) => (a < b ? a : b)

/** Reads the targets' history again and credits what was missed; see the file's header. */
export async function rescanAddresses(
  deps: RescanDeps,
  targets: readonly RescanTarget[],
  options: RescanOptions = DEFAULT_RESCAN_OPTIONS,
): Promise<RescanResult> {
  const { database, chain, clock, log, jobs, halts, ledger, transactions } = deps
  const db = database.db
  const chainKey = String(chain.chainId)
  const out: RescanResult = { found: [] }
  const cursor = await watcherRepo.cursor(db, chainKey)
  if (!cursor) return out
  const ctx: ApplyContext = { chain, clock, log, jobs, ledger, transactions }
  const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
  for (const target of targets) {
    const address = target.address.toLowerCase()
    const custodial = await watcherRepo.custodialByAddresses(db, [address])
    if (!custodial.has(address)) continue
    const ranged = target.fromBlock !== undefined
    const to =
      ranged && target.toBlock !== undefined ? min(BigInt(target.toBlock), cursor.number) : cursor.number
    const last = ranged ? null : await reconcileRepo.lastDepositBlock(db, chainKey, address, target.coin)
    const from = ranged
      ? BigInt(target.fromBlock!)
      : max(last ?? 0n, max(to - BigInt(options.lookbackBlocks) + 1n, 0n))
    if (to < from) continue
    const coin = chain.coin(target.coin)
    const tokens: TokenTransfer[] = coin.isToken
      ? await chain.tokenTransfers(from, to, { coins: [coin.reference], to: [address] })
      : []
    const native =
      coin.reference === nativeCoin
        ? await chain.nativeTransfers(
            ranged ? from : max(from, to - BigInt(options.nativeLookbackBlocks) + 1n),
            to,
            { to: [address] },
          )
        : []
    const numbers = [...new Set([...tokens.map((t) => t.blockNumber), ...native.map((n) => n.blockNumber)])]
    if (numbers.length === 0) continue
    const blocks: ChainBlock[] = []
    for (const n of numbers.sort((a, b) => (a < b ? -1 : 1))) {
      const block = await chain.getBlock(n)
      if (block) blocks.push(block)
    }
    const hashOf = new Map(blocks.map((b) => [b.number, b.hash.toLowerCase()]))
    // Only what lies in the blocks as read now (a log of a replaced block is not credited).
    const range: FetchedRange = {
      from,
      to,
      blocks,
      tokenTransfers: tokens.filter((t) => hashOf.get(t.blockNumber) === t.blockHash.toLowerCase()),
    }
    const hashes = receiptsNeeded(range, custodial)
    const [receipts, own] = await Promise.all([
      fetchReceipts(chain, hashes),
      watcherRepo.ownTransactions(db, chainKey, hashes),
    ])
    const gasWallet = chain.gasWallet.address.toLowerCase()
    const movements = classify({ range, receipts, custodial, own, nativeCoin, gasWallet }).ordered.filter(
      (m) => m.kind === 'deposit' && m.address === address && m.coin === coin.reference,
    )
    if (movements.length === 0) continue
    const prepared = await prepare(ctx, movements, receipts)
    await transactions.chainRecordId()
    const applied = await db.transaction().execute(async (tx) => {
      // Under the cursor's lock: the watcher applies nothing meanwhile, and nothing past it is taken.
      const at = await watcherRepo.lockCursor(tx, chainKey)
      const due = movements.filter((m) => at !== null && m.blockNumber <= at)
      const halted = await halts.haltedCoins(tx)
      // a gas top-up the database has no record of is the platform's gas, as for the watcher
      await creditPlatformGas(tx, ctx.ledger, due)
      const result = await applyMovements(tx, ctx, { movements: due, halted, prepared })
      if (result.applied > 0)
        await watcherRepo.audit(
          tx,
          'chain.rescan',
          {
            chainId: chain.chainId,
            address,
            coin: coin.reference,
            drift: target.drift,
            ...(ranged ? { requested: true } : {}),
            fromBlock: from.toString(),
            toBlock: to.toString(),
            credited: result.credited.map((c) => ({
              txHash: c.txHash,
              logIndex: c.logIndex,
              amount: c.amount,
            })),
            parked: result.parked,
          },
          clock.now(),
        )
      return { result, due }
    })
    logApplied(log, chain.chainId, applied.result)
    for (const c of applied.result.credited)
      out.found.push({ address, coin: c.coin, txHash: c.txHash, logIndex: c.logIndex, amount: c.amount })
    if (applied.result.applied > 0)
      log.warn(
        {
          event: 'reconcile.rescan',
          address,
          coin: coin.reference,
          drift: target.drift,
          applied: applied.result.applied,
        },
        'reconciliation found deposits the watcher had missed and credited them',
      )
  }
  return out
}
