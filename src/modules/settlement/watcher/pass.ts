// One pass of the deposit watcher: from the stored cursor to the chain's confirmed head, a block
// range at a time (fetch → classify → apply, each range in one database transaction), after the
// parked movements of resumed coins. A processed block the chain replaced (a reorg deeper than
// CONFIRMATIONS) halts every coin of the chain; the deposits of the replaced blocks that the chain
// no longer has become findings in the same transaction (../reorgs/service.ts).
import type { Executor } from '../../../db/index.ts'
import { vanishedDeposits } from '../reorgs/detect.ts'
import { haltUnknownPlatformTransfers } from '../restore/detect.ts'
import { type Applied, type ApplyContext, applyMovements, logApplied, prepare } from './apply.ts'
import { candidateAddresses, classify, receiptsNeeded } from './classify.ts'
import { fetchRange, fetchReceipts, safeHead } from './fetch.ts'
import type { WatcherDeps, WatcherOptions } from './options.ts'
import { applyParkedPass } from './parked.ts'
import { creditPlatformGas } from './platform-gas.ts'
import { watcherRepo } from './repo.ts'
import type { FetchedRange, ScanResult } from './types.ts'

export class WatcherPass {
  constructor(
    private readonly deps: WatcherDeps,
    private readonly options: WatcherOptions,
  ) {}

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  get ctx(): ApplyContext {
    const { chain, clock, log, jobs, ledger, transactions } = this.deps
    return { chain, clock, log, jobs, ledger, transactions }
  }

  cursor(ex: Executor = this.deps.database.db): Promise<{ number: bigint; hash: string } | null> {
    return watcherRepo.cursor(ex, this.chainKey)
  }

  /** Starts following the chain at its current confirmed head, unless a cursor exists. */
  async initCursor(): Promise<void> {
    if (await this.cursor()) return
    const block = await this.deps.chain.getBlock(await safeHead(this.deps.chain, this.deps.confirmations))
    if (!block) return
    await watcherRepo.insertCursor(this.deps.database.db, this.chainKey, block, this.deps.clock.now())
  }

  async run(maxBlocks?: number): Promise<Omit<ScanResult, 'leader'>> {
    const { chain, confirmations } = this.deps
    await this.initCursor()
    let applied = await applyParkedPass(this.deps, this.ctx, this.options.parkedPerPass)
    let budget = maxBlocks ?? Number.POSITIVE_INFINITY
    let read = false
    let stale = 0
    for (;;) {
      let cursor = await this.cursor()
      if (!cursor) return { cursor: null, applied }
      const safe = await safeHead(chain, confirmations)
      if (safe <= cursor.number || budget <= 0) {
        // Nothing new was read: is the processed block still the chain's?
        if (!read) await this.#checkCursorBlock(cursor)
        return { cursor: cursor.number, applied }
      }
      const span = BigInt(Math.min(this.options.batchBlocks, budget))
      const from = cursor.number + 1n
      const to = safe < from + span - 1n ? safe : from + span - 1n
      // the tokens the range is read with (a coin added meanwhile is in the read or not: never lost)
      const tokens = chain.coins.filter((c) => c.isToken).map((c) => c.reference)
      const range = await fetchRange(chain, from, to)
      read = true
      const parent = range.blocks[0]!.parentHash
      if (parent.toLowerCase() !== cursor.hash.toLowerCase()) {
        await this.#deepReorg(cursor, parent)
        cursor = { number: cursor.number, hash: parent }
      }
      const done = await this.#range(cursor.number, range, tokens)
      if (done === 'stale') {
        // A coin was added that this read did not scan for: take it, and read the range again.
        if (stale++ > 0) throw new Error('a coin added at run time could not be taken by the watcher')
        await this.deps.coins!.reload()
        continue
      }
      stale = 0
      applied += done
      budget -= Number(to - from + 1n)
    }
  }

  async #checkCursorBlock(cursor: { number: bigint; hash: string }) {
    const block = await this.deps.chain.getBlock(cursor.number)
    if (block && block.hash.toLowerCase() !== cursor.hash.toLowerCase())
      await this.#deepReorg(cursor, block.hash)
  }

  /**
   * A processed block was replaced: deposits credited from it may no longer exist on chain, which
   * the ledger cannot undo by itself. Every coin of the chain halts (nothing is credited or sent
   * until an operator resumes it); the deposits of the replaced blocks that the chain no longer
   * has become findings with their value held (looked for before the transaction opens); the
   * watcher follows the chain as it now is, parking what it finds meanwhile.
   */
  async #deepReorg(cursor: { number: bigint; hash: string }, chainHash: string) {
    const { database, chain, clock, halts, log, reorgs, confirmations } = this.deps
    const vanished = await vanishedDeposits(database.db, chain, {
      cursor: cursor.number,
      lookback: this.options.reorgLookbackBlocks,
      safeHead: await safeHead(chain, confirmations),
    })
    const details = {
      chainId: chain.chainId,
      block: cursor.number.toString(),
      processedHash: cursor.hash,
      chainHash,
      vanishedDeposits: vanished.length,
    }
    const now = clock.now()
    const replaced = await database.db.transaction().execute(async (tx) => {
      if (!(await watcherRepo.replaceCursorHash(tx, this.chainKey, cursor, chainHash, now))) return false
      await watcherRepo.audit(tx, 'chain.reorg', details, now)
      for (const c of chain.coins) await halts.halt(tx, { coin: c.reference, reason: 'reorg', details })
      await reorgs?.record(tx, vanished, { chainReorgBlock: details.block })
      return true
    })
    if (replaced)
      log.error(
        details,
        'CHAIN REORG DEEPER THAN CONFIRMATIONS: a processed block was replaced; every coin of the chain is halted until an operator checks the ledger and resumes it (docs/operations.md)',
      )
  }

  /**
   * Reads what a range needs besides its blocks (no database transaction open), then applies it.
   * 'stale' (nothing applied): a coin added at run time is missing from `tokens`, the tokens the
   * range was read with; checked under the cursor's lock, so every range applied after a coin's
   * addition committed has been read with it.
   */
  async #range(cursorAt: bigint, range: FetchedRange, tokens: string[]): Promise<number | 'stale'> {
    const { database, chain, halts, transactions, clock } = this.deps
    const db = database.db
    const custodial = await watcherRepo.custodialByAddresses(db, candidateAddresses(range))
    const hashes = receiptsNeeded(range, custodial)
    const [own, receipts] =
      hashes.length === 0
        ? [new Map(), new Map()]
        : await Promise.all([
            watcherRepo.ownTransactions(db, this.chainKey, hashes),
            fetchReceipts(chain, hashes),
          ])
    const nativeCoin = chain.coins.find((c) => !c.isToken)?.reference ?? null
    const gasWallet = chain.gasWallet.address.toLowerCase()
    const classified = classify({ range, receipts, custodial, own, nativeCoin, gasWallet })
    const prepared = await prepare(this.ctx, classified.ordered, receipts)
    await transactions.chainRecordId()
    const last = range.blocks[range.blocks.length - 1]!
    const result = await db.transaction().execute(async (tx): Promise<Applied | 'stale' | undefined> => {
      // Someone else applied this range meanwhile: nothing to do.
      if ((await watcherRepo.lockCursor(tx, this.chainKey)) !== cursorAt) return undefined
      if (this.deps.coins && (await this.deps.coins.missing(tx, tokens)).length > 0) return 'stale'
      // The platform's own transactions a restored database does not know halt their coins first,
      // so that they are parked here, never booked as outside withdrawals (../restore/detect.ts).
      const { log } = this.deps
      await haltUnknownPlatformTransfers(
        tx,
        { chainId: this.chainKey, halts, clock, log },
        classified.ordered,
      )
      const halted = await halts.haltedCoins(tx)
      await creditPlatformGas(tx, this.deps.ledger, classified.ordered)
      const applied = await applyMovements(tx, this.ctx, { movements: classified.ordered, halted, prepared })
      await watcherRepo.moveCursor(tx, this.chainKey, last, clock.now())
      return applied
    })
    if (result === 'stale') return result
    logApplied(this.deps.log, this.deps.chain.chainId, result)
    return result?.applied ?? 0
  }
}
