// The pure steps of a ledger write before any SQL: the idempotency key's check, the input's hash,
// the legs netted per account, the accounts a write touches, whether they fit it, a transfer's
// input made a write (`transferWrite`) and the write's own row (`transferRow`).
import { hash } from 'node:crypto'
import { errors } from '../../http/errors.ts'
import type { AccountShape } from './shapes.ts'
import { isRetiredKind, type TransferInput } from './types.ts'

/** A transfer as the ledger writes it: netted legs, hashed input. */
export interface Write {
  key: string
  hash: string
  coin: string
  legs: [string, bigint][]
  kind: string
  description: string
  /** a pending hold released by this transfer: its reservation no longer counts */
  release?: { account: string; amount: bigint }
  /** the pending hold this transfer posts (locked by the caller): marked posted by the transfer's
   *  own statement, when the transfer is written */
  posts?: HoldPosted
}

/** A hold marked posted by the transfer that posts it (`resolution_key` = the transfer's key). */
export interface HoldPosted {
  hold: string
  postedAmount: bigint
}

/** A base-unit amount as the database's numeric columns take it. */
export const units = (v: bigint) => v.toString()

/** The same idempotency key sent with another input. */
export const keyReused = (what = 'movement') =>
  errors.named('IDEMPOTENCY_KEY_REUSED', `This idempotency key was already used for another ${what}`)

export function inputHash(input: Record<string, unknown>): string {
  return hash(
    'sha256',
    JSON.stringify(input, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
    'hex',
  )
}

export function checkKey(key: string) {
  if (!key || key.length > 300)
    throw new Error('ledger operations need an idempotency key of 1-300 characters')
}

/** Legs merged per account (its net change), zero legs dropped, sorted by account id. */
export function netLegs(legs: { account: string; amount: bigint }[]): [string, bigint][] {
  const net = new Map<string, bigint>()
  for (const leg of legs) {
    if (typeof leg.amount !== 'bigint') throw new Error('ledger amounts are bigint base units')
    net.set(leg.account, (net.get(leg.account) ?? 0n) + leg.amount)
  }
  return [...net.entries()].filter(([, v]) => v !== 0n).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
}

/** The accounts a write touches: those of its legs, and the one whose hold it releases. */
export function accountsOf(w: Write): string[] {
  const ids = w.legs.map(([a]) => a)
  if (w.release && !ids.includes(w.release.account)) ids.push(w.release.account)
  return ids
}

/** Whether the transfer fits its accounts: each of its coin, and no retired kind credited. */
export function fits(w: Write, shapes: ReadonlyMap<string, AccountShape>): boolean {
  for (const [account, shape] of shapes) {
    if (shape.coin !== w.coin) return false
    if (isRetiredKind(shape.kind) && (w.legs.find(([a]) => a === account)?.[1] ?? 0n) > 0n) return false
  }
  return true
}

/** A write's own row as the repo stores it (`key` its idempotency key), under the id `id`. */
export function transferRow(id: string, w: Write) {
  return { id, key: w.key, inputHash: w.hash, coin: w.coin, kind: w.kind, description: w.description }
}

/** A transfer's input checked (a key, balanced legs moving something) and made a write. */
export function transferWrite(input: TransferInput): Write {
  checkKey(input.key)
  const legs = netLegs(input.legs)
  const sum = legs.reduce((s, [, v]) => s + v, 0n)
  if (sum !== 0n) throw new Error(`ledger transfer ${input.key} does not balance (${sum})`)
  if (legs.length < 2) throw new Error(`ledger transfer ${input.key} moves nothing`)
  const kind = input.kind ?? ''
  return {
    key: input.key,
    hash: inputHash({ op: 'transfer', coin: input.coin, kind, legs }),
    coin: input.coin,
    legs,
    kind,
    description: input.description ?? '',
  }
}
