// The life of a ledger hold, as TigerBeetle's two-phase transfers: a pending hold lowers its
// account's available balance and is then posted (in full or in part, to any accounts of its
// coin) or voided, once: the same key again answers the first resolution, another key is 409
// HOLD_ALREADY_POSTED, HOLD_ALREADY_VOIDED or HOLD_EXPIRED. A hold may carry a timeout past which
// it cannot be posted and `expireDue` voids it. A post is a ledger transfer written by the
// ledger's own writer (`write`), which releases the reservation with it.
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { holdsRepo } from './holds-repo.ts'
import { ledgerRepo as repo } from './repo.ts'
import { AccountIds } from './shapes.ts'
import {
  type Hold,
  type HoldInput,
  type HoldManyInput,
  type HoldManyResult,
  type HoldOutcome,
  type HoldResult,
  isRetiredKind,
  isSystemKind,
  type PostInput,
  type TransferResult,
  type VoidInput,
} from './types.ts'
import { checkKey, inputHash, keyReused, netLegs, type Write } from './write.ts'

export class LedgerHolds {
  readonly #accountIds = new AccountIds()
  /**
   * Holds written in a transaction, as written (pending, nothing posted), keyed by that
   * transaction: `get` in the same transaction answers them without reading the row again (an
   * outgoing transfer checks its funding hold right after the hold was written). Only the ledger
   * writes hold rows, and its post and void forget the hold here first; a rolled back transaction
   * object is never used again.
   */
  readonly #written = new WeakMap<Tx, Map<string, Hold>>()

  constructor(
    private readonly deps: {
      clock: Clock
      /** the ledger's transfer writer (balance rule, idempotency, locks in id order) */
      write: (tx: Tx, w: Write) => Promise<TransferResult>
    },
  ) {}

  /**
   * Reserves `amount` of the account's available balance (422 INSUFFICIENT_BALANCE beyond it).
   * The same key with the same input answers the first hold; with another input, 409.
   */
  async hold(tx: Tx, input: HoldInput): Promise<HoldResult> {
    checkKey(input.key)
    if (typeof input.amount !== 'bigint' || input.amount <= 0n)
      throw new Error('a hold reserves a positive bigint')
    const kind = input.kind ?? ''
    const hash = inputHash({
      op: 'hold',
      coin: input.coin,
      account: input.account,
      amount: input.amount,
      kind,
      ...(input.expiresAt ? { expiresAt: input.expiresAt.toISOString() } : {}),
    })
    // Lock the account before writing the hold row: the row's foreign key takes a share lock on
    // the account, which concurrent holds could not then upgrade without deadlocking.
    const [row] = await repo.accounts(tx, [input.account], { forUpdate: true })
    if (!row) throw new Error(`ledger account ${input.account} does not exist`)
    const id = newId()
    const claimed = await holdsRepo.claimHold(tx, {
      id,
      key: input.key,
      inputHash: hash,
      accountId: input.account,
      coin: input.coin,
      amount: input.amount,
      kind,
      description: input.description ?? '',
      expiresAt: input.expiresAt ?? null,
      now: this.deps.clock.now(),
    })
    if (!claimed) {
      const first = await holdsRepo.holdByKey(tx, input.key)
      if (!first) throw new Error(`ledger hold ${input.key} vanished`)
      if (first.inputHash !== hash) throw keyReused('hold')
      return { id: first.id, replayed: true }
    }
    if (row.coin !== input.coin)
      throw new Error(`ledger account ${input.account} holds ${row.coin}, not ${input.coin}`)
    if (isSystemKind(row.kind)) throw new Error(`system account ${input.account} cannot be held`)
    if (BigInt(row.balance) - BigInt(row.held) < input.amount) throw errors.insufficientBalance()
    await repo.changeBalance(tx, input.account, 0n, input.amount, this.deps.clock.now())
    this.#remember(tx, {
      id,
      account: input.account,
      coin: input.coin,
      amount: input.amount,
      kind,
      expiresAt: input.expiresAt ?? null,
    })
    return { id, replayed: false }
  }

  /**
   * Reserves several amounts of one account (kind, owner, coin; opened with a zero balance when
   * missing) in one statement, as `hold` would one after the other, under one row lock: 422
   * INSUFFICIENT_BALANCE unless its available balance covers all the new holds together, and a key
   * used before with another input is 409; either way nothing of them is written. The holds are
   * one request's: when the first hold's key was used before with the same input, the request
   * already ran, and the answer is that hold (replayed) alone, nothing written. A later hold whose
   * key was used before with the same input answers its first hold. Each hold's input hash is the
   * one `hold` computes, so a key written by either is replayed by the other.
   */
  async holdMany(tx: Tx, input: HoldManyInput): Promise<HoldManyResult> {
    if (isSystemKind(input.kind) || isRetiredKind(input.kind))
      throw new Error(`accounts of kind ${input.kind} cannot be held`)
    if (input.holds.length === 0) throw new Error('holdMany needs at least one hold')
    for (const h of input.holds) {
      checkKey(h.key)
      if (typeof h.amount !== 'bigint' || h.amount <= 0n) throw new Error('a hold reserves a positive bigint')
    }
    const ref = AccountIds.key(input.kind, input.ownerId, input.coin)
    const now = this.deps.clock.now()
    const write = (account: string) =>
      holdsRepo.writeHolds(
        tx,
        { account, kind: input.kind, ownerId: input.ownerId, coin: input.coin, now },
        input.holds.map((h) => {
          const kind = h.kind ?? ''
          return {
            id: newId(),
            key: h.key,
            inputHash: inputHash({
              op: 'hold',
              coin: input.coin,
              account,
              amount: h.amount,
              kind,
              ...(h.expiresAt ? { expiresAt: h.expiresAt.toISOString() } : {}),
            }),
            amount: h.amount,
            kind,
            description: h.description ?? '',
            expiresAt: h.expiresAt ?? null,
          }
        }),
      )
    let r = await write(this.#accountIds.get(ref) ?? newId())
    // The account exists under an id this process did not know (hashes name the account): again
    // with its id.
    if (r.outcome === 'account' && r.account) r = await write(r.account)
    if (!r.account || r.outcome === 'account') throw new Error(`ledger account ${ref} could not be held`)
    this.#accountIds.remember(ref, r.account)
    if (r.outcome === 'conflict') throw keyReused('hold')
    if (r.outcome === 'insufficient') throw errors.insufficientBalance()
    if (r.outcome === 'written')
      input.holds.forEach((h, i) => {
        const written = r.holds[i]!
        if (!written.replayed)
          this.#remember(tx, {
            id: written.id,
            account: r.account!,
            coin: input.coin,
            amount: h.amount,
            kind: h.kind ?? '',
            expiresAt: h.expiresAt ?? null,
          })
      })
    return { account: r.account, holds: r.holds }
  }

  #remember(
    tx: Tx,
    h: { id: string; account: string; coin: string; amount: bigint; kind: string; expiresAt: Date | null },
  ) {
    let written = this.#written.get(tx)
    if (!written) {
      written = new Map()
      this.#written.set(tx, written)
    }
    // as `holdsRepo.hold` reads the row (it also answers `expiredAt`)
    const hold: Hold & { expiredAt: Date | null } = {
      id: h.id,
      accountId: h.account,
      coin: h.coin,
      amount: h.amount,
      status: 'pending',
      postedAmount: 0n,
      transferId: null,
      kind: h.kind,
      resolutionKey: null,
      expiresAt: h.expiresAt,
      expiredAt: null,
      expired: false,
    }
    written.set(h.id, hold)
  }

  /** The hold: as written when `ex` is the transaction that wrote it (and has not resolved it). */
  async get(ex: Executor, id: string): Promise<Hold | undefined> {
    const written = ex.isTransaction ? this.#written.get(ex as Tx)?.get(id) : undefined
    if (written) return { ...written }
    return holdsRepo.hold(ex, id)
  }

  /**
   * Posts a pending hold: debits its account by the sum of `to` (at most the held amount) and
   * credits each leg; the rest of the reservation is released. As TigerBeetle's
   * post_pending_transfer: the same key again answers the first post (`changed: false`; with other
   * legs, 409 IDEMPOTENCY_KEY_REUSED); a hold resolved otherwise is 409 HOLD_ALREADY_POSTED,
   * HOLD_ALREADY_VOIDED or HOLD_EXPIRED (also once its timeout has passed, before `expireDue`
   * voided it).
   */
  async post(tx: Tx, input: PostInput): Promise<HoldOutcome> {
    checkKey(input.key)
    this.#written.get(tx)?.delete(input.hold)
    const hold = await holdsRepo.hold(tx, input.hold, { forUpdate: true })
    if (!hold) throw new Error(`ledger hold ${input.hold} does not exist`)
    let total = 0n
    for (const leg of input.to) {
      if (typeof leg.amount !== 'bigint' || leg.amount <= 0n)
        throw new Error('posting legs are positive bigints')
      total += leg.amount
    }
    const legs = netLegs([{ account: hold.accountId, amount: -total }, ...input.to])
    const kind = input.kind ?? (hold.kind ? `${hold.kind}.post` : 'hold.post')
    const hash = inputHash({ op: 'post', hold: hold.id, coin: hold.coin, kind, legs })
    if (hold.status === 'posted' && hold.resolutionKey === input.key) {
      // The same post again (a retry after a crash, a report run twice): its first answer.
      const first = await repo.transferByKey(tx, input.key)
      if (first && first.inputHash !== '' && first.inputHash !== hash) throw keyReused()
      return this.#outcome(hold, false)
    }
    this.#refuseResolved(hold)
    if (total <= 0n || total > hold.amount)
      throw new Error(`posting ${total} of hold ${hold.id} outside 1..${hold.amount}; void it instead`)
    const transfer = await this.deps.write(tx, {
      key: input.key,
      hash,
      coin: hold.coin,
      legs,
      kind,
      description: input.description ?? '',
      release: { account: hold.accountId, amount: hold.amount },
      // The hold is marked posted by the transfer's own statement.
      posts: { hold: hold.id, postedAmount: total },
    })
    if (transfer.replayed) throw new Error(`the posting key ${input.key} was used before its hold was posted`)
    return { status: 'posted', changed: true, transferId: transfer.id, postedAmount: total }
  }

  /**
   * Releases a pending hold in full. As TigerBeetle's void_pending_transfer: the same key again
   * answers the first void (`changed: false`); a hold resolved otherwise is 409
   * HOLD_ALREADY_POSTED, HOLD_ALREADY_VOIDED or HOLD_EXPIRED.
   */
  async void(tx: Tx, input: VoidInput): Promise<HoldOutcome> {
    checkKey(input.key)
    this.#written.get(tx)?.delete(input.hold)
    const hold = await holdsRepo.hold(tx, input.hold, { forUpdate: true })
    if (!hold) throw new Error(`ledger hold ${input.hold} does not exist`)
    if (hold.status === 'voided' && !hold.expired && hold.resolutionKey === input.key)
      return this.#outcome(hold, false)
    this.#refuseResolved(hold)
    return this.#release(tx, hold, input.key, false)
  }

  /**
   * Voids the pending holds whose timeout has passed (at most `limit`, oldest first), each in a
   * transaction of its own; answers how many. A hold posted or voided meanwhile is left alone.
   */
  async expireDue(db: Db, limit = 100): Promise<number> {
    const due = await holdsRepo.dueHolds(db, this.deps.clock.now(), limit)
    let expired = 0
    for (const id of due) {
      const done = await db.transaction().execute(async (tx) => {
        const hold = await holdsRepo.hold(tx, id, { forUpdate: true })
        if (hold?.status !== 'pending' || !this.#isPastTimeout(hold)) return false
        await this.#release(tx, hold, `hold:${id}:expire`, true)
        return true
      })
      if (done) expired++
    }
    return expired
  }

  async #release(tx: Tx, hold: Hold, key: string, expired: boolean): Promise<HoldOutcome> {
    this.#written.get(tx)?.delete(hold.id)
    const now = this.deps.clock.now()
    // The hold's row is locked (read for update by the caller): the account's update takes the
    // account's lock after it, as a post's transfer does. Both writes are sent ahead.
    await repo.changeBalance(tx, hold.accountId, 0n, -hold.amount, now)
    await holdsRepo.resolveHold(tx, hold.id, {
      status: 'voided',
      postedAmount: 0n,
      transferId: null,
      key,
      expired,
      now,
    })
    return { status: 'voided', changed: true, transferId: null, postedAmount: 0n }
  }

  #isPastTimeout(hold: Hold): boolean {
    return hold.expiresAt !== null && hold.expiresAt.getTime() <= this.deps.clock.now().getTime()
  }

  /** Throws unless the hold is pending and within its timeout. */
  #refuseResolved(hold: Hold) {
    if (hold.status === 'posted')
      throw errors.named('HOLD_ALREADY_POSTED', 'This hold was already posted', { holdId: hold.id })
    if (hold.status === 'voided' && hold.expired)
      throw errors.named('HOLD_EXPIRED', 'This hold expired and was voided', { holdId: hold.id })
    if (hold.status === 'voided')
      throw errors.named('HOLD_ALREADY_VOIDED', 'This hold was already voided', { holdId: hold.id })
    if (this.#isPastTimeout(hold))
      throw errors.named('HOLD_EXPIRED', 'This hold expired', { holdId: hold.id })
  }

  #outcome(hold: Hold, changed: boolean): HoldOutcome {
    return { status: hold.status, changed, transferId: hold.transferId, postedAmount: hold.postedAmount }
  }
}
