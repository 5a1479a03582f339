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
import { ledgerRepo as repo } from './repo.ts'
import {
  type Hold,
  type HoldInput,
  type HoldOutcome,
  type HoldResult,
  isSystemKind,
  type PostInput,
  type TransferResult,
  type VoidInput,
} from './types.ts'
import { checkKey, inputHash, keyReused, netLegs, type Write } from './write.ts'

export class LedgerHolds {
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
    const claimed = await repo.claimHold(tx, {
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
      const first = await repo.holdByKey(tx, input.key)
      if (!first) throw new Error(`ledger hold ${input.key} vanished`)
      if (first.inputHash !== hash) throw keyReused('hold')
      return { id: first.id, replayed: true }
    }
    if (row.coin !== input.coin)
      throw new Error(`ledger account ${input.account} holds ${row.coin}, not ${input.coin}`)
    if (isSystemKind(row.kind)) throw new Error(`system account ${input.account} cannot be held`)
    if (BigInt(row.balance) - BigInt(row.held) < input.amount) throw errors.insufficientBalance()
    await repo.changeBalance(tx, input.account, 0n, input.amount, this.deps.clock.now())
    return { id, replayed: false }
  }

  async get(ex: Executor, id: string): Promise<Hold | undefined> {
    return repo.hold(ex, id)
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
    const hold = await repo.hold(tx, input.hold, { forUpdate: true })
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
    })
    if (transfer.replayed) throw new Error(`the posting key ${input.key} was used before its hold was posted`)
    const now = this.deps.clock.now()
    await repo.resolveHold(tx, hold.id, {
      status: 'posted',
      postedAmount: total,
      transferId: transfer.id,
      key: input.key,
      now,
    })
    return { status: 'posted', changed: true, transferId: transfer.id, postedAmount: total }
  }

  /**
   * Releases a pending hold in full. As TigerBeetle's void_pending_transfer: the same key again
   * answers the first void (`changed: false`); a hold resolved otherwise is 409
   * HOLD_ALREADY_POSTED, HOLD_ALREADY_VOIDED or HOLD_EXPIRED.
   */
  async void(tx: Tx, input: VoidInput): Promise<HoldOutcome> {
    checkKey(input.key)
    const hold = await repo.hold(tx, input.hold, { forUpdate: true })
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
    const due = await repo.dueHolds(db, this.deps.clock.now(), limit)
    let expired = 0
    for (const id of due) {
      const done = await db.transaction().execute(async (tx) => {
        const hold = await repo.hold(tx, id, { forUpdate: true })
        if (hold?.status !== 'pending' || !this.#isPastTimeout(hold)) return false
        await this.#release(tx, hold, `hold:${id}:expire`, true)
        return true
      })
      if (done) expired++
    }
    return expired
  }

  async #release(tx: Tx, hold: Hold, key: string, expired: boolean): Promise<HoldOutcome> {
    const now = this.deps.clock.now()
    await repo.accounts(tx, [hold.accountId], { forUpdate: true })
    await repo.changeBalance(tx, hold.accountId, 0n, -hold.amount, now)
    await repo.resolveHold(tx, hold.id, {
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
