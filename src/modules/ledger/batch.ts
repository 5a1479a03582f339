// Group commit for transfers that stand alone (`Ledger.submit`): transfers go together in one
// transaction and one commit (one WAL flush), up to MAX_BATCH at a time: those submitted in the
// same turn of the event loop, and those submitted while IN_FLIGHT batches are being written. A
// transfer submitted in a quiet moment goes alone, at the end of its turn; under load, batches grow
// with the load. A batch locks its accounts in id order (as every transfer does), checks each
// transfer in order against what its accounts may spend, and writes those that fit in one
// statement, each account changed once by its net delta. Each transfer is all-or-nothing on its
// own: one refused leaves nothing written and the others go on, and each caller's promise settles
// after the commit, with its own answer. When a batch fails as a whole (a deadlock with another
// writer that outlasted the transaction retries of src/db/retry.ts, a key claimed meanwhile, a lost
// connection, even at COMMIT), its transfers are written
// again one by one, each in its own transaction, under the same keys: what had been committed
// answers as a replay, and nothing is written twice.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { ledgerRepo as repo } from './repo.ts'
import type { TransferResult } from './types.ts'
import { transferRow, type Write } from './write.ts'

/** A non-system account a transfer changes: its balance by `delta`, its holds' total down by `released`. */
export interface Change {
  account: string
  delta: bigint
  released: bigint
}

/** The most transfers written in one batch */
export const MAX_BATCH = 256
/** The most batches being written at once (each holds one pooled connection while it runs) */
export const IN_FLIGHT = 2

/** A batched transfer's outcome: written (its id), or why not */
type Outcome = { id: string } | 'replay' | 'missing' | 'insufficient'

interface Waiting {
  w: Write
  changes: Change[]
  resolve: (r: TransferResult) => void
  reject: (err: unknown) => void
}

export interface BatchHooks {
  /** writes one transfer in a transaction of its own */
  alone(w: Write): Promise<TransferResult>
  /** the answer for a key already used: its first transfer, or a conflict */
  replay(w: Write): Promise<TransferResult>
  /** throws the error of a transfer naming an account that does not exist */
  missing(w: Write): Promise<never>
}

export class TransferBatches {
  #waiting: Waiting[] = []
  #running = 0
  #scheduled = false
  /** batches written, and transfers in them (for tests and the bench) */
  readonly stats = { batches: 0, transfers: 0, largest: 0 }

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly hooks: BatchHooks,
  ) {}

  submit(w: Write, changes: Change[]): Promise<TransferResult> {
    if (changes.some((c) => c.released !== 0n)) throw new Error('a batched transfer releases no hold')
    return new Promise((resolve, reject) => {
      this.#waiting.push({ w, changes, resolve, reject })
      // Once this turn of the event loop ends: what is submitted in the same turn (the callers a
      // batch's commit has just answered, say) goes in one batch.
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => {
          this.#scheduled = false
          this.#pump()
        })
      }
    })
  }

  #pump() {
    while (this.#waiting.length > 0 && this.#running < IN_FLIGHT) {
      const batch = this.#waiting.splice(0, MAX_BATCH)
      this.#running++
      void this.#run(batch)
        // Not expected (#run settles every transfer itself), but no caller may wait forever.
        .catch((err) => {
          for (const b of batch) b.reject(err)
        })
        .finally(() => {
          this.#running--
          this.#pump()
        })
    }
  }

  async #run(batch: Waiting[]): Promise<void> {
    let outcomes: Outcome[]
    try {
      outcomes = await this.db.transaction().execute((tx) => this.#write(tx, batch))
    } catch {
      // Nothing of the batch is known to be written: each goes again alone, under its key.
      await Promise.all(batch.map((b) => this.hooks.alone(b.w).then(b.resolve, b.reject)))
      return
    }
    this.stats.batches++
    this.stats.transfers += batch.length
    this.stats.largest = Math.max(this.stats.largest, batch.length)
    await Promise.all(
      batch.map(async (b, i) => {
        const outcome = outcomes[i]!
        try {
          if (outcome === 'replay') b.resolve(await this.hooks.replay(b.w))
          else if (outcome === 'missing') await this.hooks.missing(b.w)
          else if (outcome === 'insufficient') throw errors.insufficientBalance()
          else b.resolve({ id: outcome.id, replayed: false })
        } catch (err) {
          b.reject(err)
        }
      }),
    )
  }

  /**
   * Writes what fits of a batch in `tx`, answering each transfer's outcome in order. Its rows are
   * locked first, in id order; then each transfer, in order, is a replay (its key was used, before
   * or earlier in the batch), names a missing account, would leave an account below what its holds
   * reserve, or is written. The written ones go in one statement (`repo.writeBatch`), each account
   * changed once by its net delta.
   */
  async #write(tx: Tx, batch: Waiting[]): Promise<Outcome[]> {
    const accounts = [...new Set(batch.flatMap((b) => b.changes.map((c) => c.account)))].sort()
    const available = await repo.lockAvailable(tx, accounts)
    const taken = await repo.usedKeys(tx, [...new Set(batch.map((b) => b.w.key))])
    const outcomes: Outcome[] = []
    const written: { id: string; w: Write; changes: Change[] }[] = []
    for (const { w, changes } of batch) {
      if (taken.has(w.key)) outcomes.push('replay')
      else if (changes.some((c) => !available.has(c.account))) outcomes.push('missing')
      else if (changes.some((c) => c.delta < 0n && available.get(c.account)! + c.delta < 0n))
        outcomes.push('insufficient')
      else {
        for (const c of changes) available.set(c.account, available.get(c.account)! + c.delta)
        taken.add(w.key)
        const id = newId()
        outcomes.push({ id })
        written.push({ id, w, changes })
      }
    }
    if (written.length === 0) return outcomes
    const nets = new Map<string, bigint>()
    for (const { changes } of written)
      for (const c of changes) nets.set(c.account, (nets.get(c.account) ?? 0n) + c.delta)
    const r = await repo.writeBatch(
      tx,
      this.clock.now(),
      written.map(({ id, w }) => transferRow(id, w)),
      [...nets].map(([account, delta]) => ({ account, delta })),
      written.flatMap(({ id, w }) =>
        w.legs.map(([account, amount]) => ({ transferId: id, account, coin: w.coin, amount })),
      ),
    )
    if (r.claimed !== written.length || r.moved !== nets.size)
      throw new Error('a concurrent writer claimed a key of the batch or changed one of its accounts')
    return outcomes
  }
}
