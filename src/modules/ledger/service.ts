// The double-entry ledger, the only writer of the ledger tables. Every movement of value is a
// transfer whose entries sum to zero, written inside the caller's transaction with the touched
// balance rows locked in id order (no deadlocks), under an idempotency key stored with a hash of
// the input: the same key with the same input answers the first transfer and moves nothing; with
// another input it is a conflict. Funds are reserved by two-phase holds (as in TigerBeetle): a
// pending hold lowers the account's available balance and is later posted (in full or in part,
// to any accounts of its coin) or voided, at most once. System accounts (see SYSTEM_KINDS) are
// never locked: their balance is the sum of their entries.
import { type Write as StatementWrite, write } from '../../db/compose.ts'
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { type Change, TransferBatches } from './batch.ts'
import { LedgerHolds } from './holds.ts'
import { ledgerRepo as repo } from './repo.ts'
import { type AccountShape, AccountShapes } from './shapes.ts'
import {
  type Hold,
  type HoldInput,
  type HoldManyInput,
  type HoldManyResult,
  type HoldOutcome,
  type HoldResult,
  isRetiredKind,
  isSystemKind,
  type LedgerAccount,
  type LedgerAccountKind,
  type OpenAccountKind,
  type PostInput,
  SYSTEM_KINDS,
  type TransferInput,
  type TransferResult,
  type VoidInput,
} from './types.ts'
import { accountsOf, fits, keyReused, transferRow, transferWrite, type Write } from './write.ts'

export class Ledger {
  readonly #shapes = new AccountShapes()
  readonly #batches = new WeakMap<Db, TransferBatches>()
  readonly #holds: LedgerHolds

  constructor(private readonly deps: { clock: Clock }) {
    this.#holds = new LedgerHolds({ clock: deps.clock, write: (tx, w) => this.#write(tx, w) })
  }

  /**
   * The id of the account (kind, owner, coin), created with a zero balance when missing. System
   * accounts use the owner id '' (or a chain id for `chain`). A retired kind is refused. One
   * statement, whether the account is new or not (two when a concurrent caller made it first).
   */
  async ensureAccount(ex: Executor, kind: OpenAccountKind, ownerId: string, coin: string): Promise<string> {
    const row = this.#newAccountRow(kind, ownerId, coin)
    const id =
      (await repo.insertOrFindAccount(ex, row)) ??
      // A concurrent transaction made it after the statement's snapshot: a new statement sees it.
      (await repo.accountId(ex, kind, ownerId, coin))
    if (!id) throw new Error(`ledger account ${kind}/${ownerId}/${coin} could not be created`)
    return id
  }

  /**
   * The account of an owner made in the caller's statement (a new escrow, which has no account
   * yet): its id, and the insert the caller runs with its own statement (`withWrites`).
   */
  newOwnerAccount(
    ex: Executor,
    kind: OpenAccountKind,
    ownerId: string,
    coin: string,
  ): { id: string; write: StatementWrite } {
    const row = this.#newAccountRow(kind, ownerId, coin)
    return { id: row.id, write: write(repo.insertAccount(ex, row)) }
  }

  /** A new account's row, under a fresh id; a retired kind is refused. */
  #newAccountRow(kind: OpenAccountKind, ownerId: string, coin: string) {
    if (isRetiredKind(kind)) throw new Error(`ledger accounts of kind ${kind} are retired`)
    return { id: newId(), kind, ownerId, coin, now: this.deps.clock.now() }
  }

  async #views(ex: Executor, rows: Awaited<ReturnType<typeof repo.accounts>>): Promise<LedgerAccount[]> {
    const system = rows.filter((r) => isSystemKind(r.kind)).map((r) => r.id)
    const sums = await repo.entrySums(ex, system)
    return rows.map((r) => {
      const balance = isSystemKind(r.kind) ? (sums.get(r.id) ?? 0n) : BigInt(r.balance)
      const held = BigInt(r.held)
      return {
        id: r.id,
        kind: r.kind,
        ownerId: r.ownerId,
        coin: r.coin,
        balance,
        held,
        available: balance - held,
      }
    })
  }

  /** An account by id (its row locked for the rest of `tx` when `forUpdate`). */
  async account(
    ex: Executor,
    id: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<LedgerAccount | undefined> {
    const [row] = await repo.accounts(ex, [id], opts)
    return row ? (await this.#views(ex, [row]))[0] : undefined
  }

  /**
   * What the account (kind, owner, coin) can spend now: its balance less pending holds (0 when
   * missing). With `forUpdate`, its row is locked in `ex` (a transaction) first.
   */
  async balance(
    ex: Executor,
    kind: LedgerAccountKind,
    ownerId: string,
    coin: string,
    opts: { forUpdate?: boolean } = {},
  ): Promise<bigint> {
    const rows = await repo.accountsOf(ex, kind, ownerId, coin, opts)
    const [view] = await this.#views(ex, rows)
    return view?.available ?? 0n
  }

  /** One owner's accounts of a kind, keyed by coin. */
  async accountsOf(
    ex: Executor,
    kind: LedgerAccountKind,
    ownerId: string,
  ): Promise<Record<string, LedgerAccount>> {
    const views = await this.#views(ex, await repo.accountsOf(ex, kind, ownerId))
    return Object.fromEntries(views.map((v) => [v.coin, v]))
  }

  /** Available balances of one owner's accounts of a kind, keyed by coin. */
  async balances(ex: Executor, kind: LedgerAccountKind, ownerId: string): Promise<Record<string, bigint>> {
    const views = await this.accountsOf(ex, kind, ownerId)
    return Object.fromEntries(Object.entries(views).map(([coin, v]) => [coin, v.available]))
  }

  /**
   * Moves value between accounts of one coin inside the caller's transaction. The legs must sum to
   * zero. A debit beyond a non-system account's available balance fails with 422
   * INSUFFICIENT_BALANCE (and rolls back with the caller's transaction).
   */
  async transfer(tx: Tx, input: TransferInput): Promise<TransferResult> {
    return this.#write(tx, transferWrite(input))
  }

  /**
   * The same transfer in a transaction of its own, written and committed together with the other
   * transfers submitted meanwhile (group commit: one transaction and one WAL flush for many). Each
   * is all-or-nothing on its own: one refused (422 INSUFFICIENT_BALANCE, a 409 key conflict, a
   * missing account) leaves nothing written and does not hold back the others. Settles once
   * committed. For movements that carry no other record; a business operation writing its own
   * rows with the transfer calls `transfer` inside its transaction.
   */
  async submit(db: Db, input: TransferInput): Promise<TransferResult> {
    const w = transferWrite(input)
    const plan = await this.#plan(db, w)
    if (!plan) return db.transaction().execute((tx) => this.#write(tx, w))
    let batches = this.#batches.get(db)
    if (!batches) {
      batches = new TransferBatches(db, this.deps.clock, {
        alone: (one) => db.transaction().execute((tx) => this.#write(tx, one)),
        replay: (one) => this.#replay(db, one),
        missing: (one) => this.#missing(db, accountsOf(one)),
      })
      this.#batches.set(db, batches)
    }
    return batches.submit(w, plan.changes)
  }

  /** How `submit` has batched on `db` so far: batches written, the transfers in them, the largest. */
  batchStats(db: Db): { batches: number; transfers: number; largest: number } {
    return { ...(this.#batches.get(db)?.stats ?? { batches: 0, transfers: 0, largest: 0 }) }
  }

  /**
   * The rows a write changes when every account is known in process (kind and coin) and fits it:
   * the non-system accounts in id order, each with its delta and the reservation it releases.
   * Undefined otherwise (`#writeStepwise` then finds and reports what does not fit).
   */
  async #plan(ex: Executor, w: Write): Promise<{ ids: string[]; changes: Change[] } | undefined> {
    const ids = accountsOf(w)
    const shapes = await this.#shapesOf(ex, ids)
    if (!shapes || !fits(w, shapes)) return undefined
    const changes = ids
      .filter((a) => !isSystemKind(shapes.get(a)!.kind))
      .sort()
      .map((account) => ({
        account,
        delta: w.legs.find(([a]) => a === account)?.[1] ?? 0n,
        released: w.release?.account === account ? w.release.amount : 0n,
      }))
    return { ids, changes }
  }

  /**
   * Writes a transfer, always in one statement (`repo.writeTransfer`: claims the key, changes the
   * non-system rows in id order under the balance rule, inserts the entries). When `#plan` cannot
   * place it, `#writeStepwise` first says why (replay, missing account, another coin, retired
   * kind).
   */
  async #write(tx: Tx, w: Write): Promise<TransferResult> {
    const plan = await this.#plan(tx, w)
    if (!plan) return this.#writeStepwise(tx, w)
    return this.#writePlanned(tx, w, plan)
  }

  /** Writes a planned transfer in one statement (`repo.writeTransfer`, the balance rule's home). */
  async #writePlanned(tx: Tx, w: Write, plan: { ids: string[]; changes: Change[] }): Promise<TransferResult> {
    const id = newId()
    const { ids, changes } = plan
    const r = await repo.writeTransfer(
      tx,
      { ...transferRow(id, w), now: this.deps.clock.now() },
      changes,
      w.legs,
      w.posts,
    )
    if (!r.claimed) return this.#replay(tx, w)
    if (r.present < changes.length) return this.#missing(tx, ids)
    if (!r.fits) throw errors.insufficientBalance()
    return { id, replayed: false }
  }

  /** Throws for the first of `ids` that does not exist (forgetting what this process knew of them). */
  async #missing(ex: Executor, ids: string[]): Promise<never> {
    this.#shapes.forget(ids)
    const present = new Set((await repo.accounts(ex, ids)).map((row) => row.id))
    throw new Error(`ledger account ${ids.find((a) => !present.has(a))} does not exist`)
  }

  /** Kind and coin of each account (read once per process), or undefined when one is missing. */
  async #shapesOf(ex: Executor, ids: string[]): Promise<Map<string, AccountShape> | undefined> {
    const missing = ids.filter((a) => !this.#shapes.get(a))
    if (missing.length > 0) this.#shapes.remember(await repo.accounts(ex, missing))
    const out = new Map<string, AccountShape>()
    for (const a of ids) {
      const shape = this.#shapes.get(a)
      if (!shape) return undefined
      out.set(a, shape)
    }
    return out
  }

  /** The first transfer of a key already used: the same input answers it, another is a conflict. */
  async #replay(ex: Executor, w: Write): Promise<TransferResult> {
    const first = await repo.transferByKey(ex, w.key)
    if (!first) throw new Error(`ledger transfer ${w.key} vanished`)
    // Transfers written before inputs were hashed are compared by coin only.
    const same = first.inputHash === '' ? first.coin === w.coin : first.inputHash === w.hash
    if (!same) throw keyReused()
    return { id: first.id, replayed: true }
  }

  /**
   * The slow path, for a write `#plan` could not place (an account unknown in process or not
   * fitting it): a key already used answers as a replay; otherwise each account is read and what
   * does not fit is refused with its reason (missing, another coin, a retired kind credited).
   * What fits after all (an account created meanwhile) is written by the same statement as every
   * other transfer: the balance rule (no row left below what its pending holds reserve) lives in
   * `ledger_write_transfer` alone, not again here.
   */
  async #writeStepwise(tx: Tx, w: Write): Promise<TransferResult> {
    if (await repo.transferByKey(tx, w.key)) return this.#replay(tx, w)
    const ids = accountsOf(w)
    const all = await repo.accounts(tx, ids)
    this.#shapes.remember(all)
    const byId = new Map(all.map((r) => [r.id, r]))
    for (const account of ids) {
      const row = byId.get(account)
      if (!row) throw new Error(`ledger account ${account} does not exist`)
      if (row.coin !== w.coin) throw new Error(`ledger account ${account} holds ${row.coin}, not ${w.coin}`)
      if (isRetiredKind(row.kind) && (w.legs.find(([a]) => a === account)?.[1] ?? 0n) > 0n)
        throw new Error(
          `ledger account ${account} is of the retired kind ${row.kind}: nothing is credited to it`,
        )
    }
    const plan = await this.#plan(tx, w)
    if (!plan) throw new Error(`ledger transfer ${w.key} fits its accounts but could not be planned`)
    return this.#writePlanned(tx, w, plan)
  }

  /**
   * Reserves `amount` of the account's available balance (422 INSUFFICIENT_BALANCE beyond it).
   * The same key with the same input answers the first hold; with another input, 409. The hold's
   * life (post, void, timeout) is in holds.ts.
   */
  hold(tx: Tx, input: HoldInput): Promise<HoldResult> {
    return this.#holds.hold(tx, input)
  }

  /**
   * Several holds on one account (kind, owner, coin; opened when missing) in one statement, all or
   * nothing; the first hold's key stands for the request (see LedgerHolds.holdMany).
   */
  holdMany(tx: Tx, input: HoldManyInput): Promise<HoldManyResult> {
    return this.#holds.holdMany(tx, input)
  }

  /** A hold by id; one written in `ex` (the same transaction) is answered as written, unread. */
  getHold(ex: Executor, id: string): Promise<Hold | undefined> {
    return this.#holds.get(ex, id)
  }

  /** Posts a pending hold, at most once (see LedgerHolds.post). */
  post(tx: Tx, input: PostInput): Promise<HoldOutcome> {
    return this.#holds.post(tx, input)
  }

  /** Releases a pending hold in full, at most once (see LedgerHolds.void). */
  void(tx: Tx, input: VoidInput): Promise<HoldOutcome> {
    return this.#holds.void(tx, input)
  }

  /** Voids the pending holds whose timeout has passed; answers how many. */
  expireDue(db: Db, limit = 100): Promise<number> {
    return this.#holds.expireDue(db, limit)
  }

  /**
   * A page of what the platform owes (proof of reserves): every account that keeps a balance of
   * its own (users, escrows, treasury; not the system accounts), by id after `after`. Read it in a
   * repeatable-read transaction to see one state of the whole ledger.
   */
  async holdings(
    ex: Executor,
    after: string,
    limit: number,
  ): Promise<{ id: string; kind: LedgerAccountKind; ownerId: string; coin: string; balance: bigint }[]> {
    const rows = await repo.holdingsPage(ex, SYSTEM_KINDS, after, limit)
    return rows.map((r) => ({ ...r, balance: BigInt(r.balance) }))
  }

  /** The entries of a transfer (for audits and tests). */
  async entries(ex: Executor, transferId: string) {
    return repo.entries(ex, transferId)
  }
}
