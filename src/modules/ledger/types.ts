// The ledger's public types: accounts, transfers, holds and what their operations answer.
import type { LedgerAccountKind, LedgerHoldStatus } from '../../db/tables/ledger.ts'

/** the ledger service (built by module.ts): other modules name its type from here */
export type { Ledger } from './service.ts'
export type { LedgerAccountKind, LedgerHoldStatus }

/**
 * Accounts that keep no cached balance and take no row lock: the chain's clearing account (it
 * mirrors value outside custody and may go below zero), `platform_loss` (see MAY_GO_NEGATIVE) and
 * `platform_fee` (a revenue account the service does not credit: the platform's fees are value at
 * its fee address, booked on that address's `treasury` account of owner `fees`, see modules/fees).
 * Their balance is the sum of their entries; nothing debits them without a balance check of its
 * own.
 */
export const SYSTEM_KINDS: readonly LedgerAccountKind[] = ['chain', 'platform_fee', 'platform_loss']
export const isSystemKind = (kind: LedgerAccountKind) => SYSTEM_KINDS.includes(kind)

/**
 * System accounts whose balance may go below zero: the chain's clearing account (value that came
 * into custody from outside) and `platform_loss` (what the platform bore when a deposit a deep
 * reorganisation took back was reversed after part of it had been spent; owner '').
 */
export const MAY_GO_NEGATIVE: readonly LedgerAccountKind[] = ['chain', 'platform_loss']

/**
 * Account kinds nothing posts to any more. `withdrawal_hold` parked value reserved for transfers
 * not yet mined; reservations are pending holds on the paying account now (migration 0026 moved
 * what was parked back). Its rows and entries stay readable; no new account of it is opened and
 * nothing is credited to one.
 */
export const RETIRED_KINDS: readonly LedgerAccountKind[] = ['withdrawal_hold']
export const isRetiredKind = (kind: LedgerAccountKind) => RETIRED_KINDS.includes(kind)
/** The kinds an account may be opened (and credited) with. */
export type OpenAccountKind = Exclude<LedgerAccountKind, 'withdrawal_hold'>

export interface LedgerLeg {
  /** ledger account id (from `ensureAccount`) */
  account: string
  /** signed base units: negative debits the account, positive credits it */
  amount: bigint
}

export interface TransferInput {
  /** unique per movement of value: the same key with the same input answers the first transfer */
  key: string
  coin: string
  legs: LedgerLeg[]
  /** a short machine label (`deposit`, `withdrawal`, `escrow.fund`, ...); part of the input */
  kind?: string
  /** free text, not part of the input */
  description?: string
}

export interface TransferResult {
  id: string
  /** true when the key was already used with the same input: nothing moved this time */
  replayed: boolean
}

export interface HoldInput {
  /** unique per hold: the same key with the same input answers the first hold */
  key: string
  coin: string
  /** the account whose available balance is reserved */
  account: string
  /** base units, > 0 */
  amount: bigint
  kind?: string
  description?: string
  /** the hold voids itself at this time unless posted or voided before (`expireDue`, which each
   * reconciliation run calls first); a post or void after it answers 409 HOLD_EXPIRED. Not for a
   * hold that funds an outgoing transfer (refused there: the chain may still mine it). */
  expiresAt?: Date
}

export interface HoldResult {
  id: string
  replayed: boolean
}

/** Holds on one account, reserved together in one statement (`Ledger.holdMany`). */
export interface HoldManyInput {
  /** the account: (kind, owner, coin), opened with a zero balance when missing; not a system kind */
  kind: OpenAccountKind
  ownerId: string
  coin: string
  /** the holds, in order; the first one's key stands for the whole request (see holdMany) */
  holds: Omit<HoldInput, 'coin' | 'account'>[]
}

export interface HoldManyResult {
  /** the account's id */
  account: string
  /** one per hold of the input; only the first when that one was replayed (nothing written) */
  holds: HoldResult[]
}

export interface PostInput {
  hold: string
  /** where the posted value goes: credits (amount > 0) of accounts of the hold's coin, summing
   *  to at most the held amount; what is not posted is released back to the account */
  to: LedgerLeg[]
  /** the post's idempotency key (also the key of the transfer it writes): the same key again
   * answers the first post; a hold resolved under another key is 409 HOLD_ALREADY_POSTED,
   * HOLD_ALREADY_VOIDED or HOLD_EXPIRED */
  key: string
  kind?: string
  description?: string
}

export interface VoidInput {
  hold: string
  /** the void's idempotency key: the same key again answers the first void; a hold resolved under
   * another key is 409 HOLD_ALREADY_POSTED, HOLD_ALREADY_VOIDED or HOLD_EXPIRED */
  key: string
}

/** What a post or void did: `changed` is false when the same key had resolved the hold before. */
export interface HoldOutcome {
  status: LedgerHoldStatus
  changed: boolean
  /** the transfer that posted the hold (when posted) */
  transferId: string | null
  postedAmount: bigint
}

export interface LedgerAccount {
  id: string
  kind: LedgerAccountKind
  ownerId: string
  coin: string
  /** the sum of the account's entries */
  balance: bigint
  /** reserved by pending holds */
  held: bigint
  /** balance - held: what can be spent or reserved now */
  available: bigint
}

export interface Hold {
  id: string
  accountId: string
  coin: string
  amount: bigint
  status: LedgerHoldStatus
  postedAmount: bigint
  transferId: string | null
  kind: string
  /** the key of the post or void that resolved it (null while pending) */
  resolutionKey: string | null
  expiresAt: Date | null
  /** voided by its timeout */
  expired: boolean
}
