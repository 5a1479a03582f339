// Making a ledger account or a custodial key when missing: one statement whether the row is new or
// not; concurrent callers for the same owner all answer the one row stored; a caller whose
// statement began before a concurrent caller committed the row answers that row too (a second
// statement reads it); the key answered is always the key stored, whose sealed private key opens.
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, Tx } from '../../src/db/index.ts'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { KeyStore } from '../../src/modules/settlement/keys.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createSecretBox } from '../../src/platform/crypto/secrets.ts'
import { openTestDatabase } from '../helpers/app.ts'
import { heldOpen, lockWaiters } from '../helpers/held-transaction.ts'

let database: Database
const ledger = new Ledger({ clock: systemClock })
const keys = new KeyStore({
  secrets: createSecretBox({ k1: Buffer.alloc(32, 7) }, 'k1'),
  clock: systemClock,
})

beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(() => database?.close())

/** `fn`'s answer and the statements it sent (nothing else runs meanwhile). */
async function counted<T>(fn: () => Promise<T>): Promise<{ value: T; queries: number }> {
  const before = database.queryCount()
  const value = await fn()
  return { value, queries: database.queryCount() - before }
}

const inTx = <T>(fn: (tx: Tx) => Promise<T>) => database.db.transaction().execute(fn)

/** The stored private key of `address` is that address's key. */
async function expectKeyOpens(address: string) {
  expect(privateKeyToAddress(await keys.privateKey(database.db, address)).toLowerCase()).toBe(address)
}

/**
 * Runs `first` in a transaction held open, then `second` in another that must wait for it, and
 * commits the first once the second waits on its row lock (PostgreSQL); the embedded database has
 * one connection, so there the second runs after the first committed.
 */
async function interleaved<A, B>(first: (tx: Tx) => Promise<A>, second: (tx: Tx) => Promise<B>) {
  const held = await heldOpen(database.db, first)
  const a = held.value
  const before = database.queryCount()
  const secondTx = inTx(second)
  let polls = 0
  if (database.kind === 'postgres') {
    // until the second statement (its snapshot taken) waits for the first transaction's row
    for (;;) {
      polls++
      if ((await lockWaiters(database.db)) > 0) break
      if (polls > 500) throw new Error('the second transaction never waited')
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  await held.release()
  const b = await secondTx
  return { a, b, secondQueries: database.queryCount() - before - polls }
}

describe('ledger accounts made when missing', () => {
  it('takes one statement for a new account and one for an existing one', async () => {
    const owner = newId()
    const made = await counted(() => inTx((tx) => ledger.ensureAccount(tx, 'escrow', owner, 'usdc')))
    expect(made.queries).toBe(1)
    const again = await counted(() => inTx((tx) => ledger.ensureAccount(tx, 'escrow', owner, 'usdc')))
    expect(again).toEqual({ value: made.value, queries: 1 })
    // another coin of the same owner is another account
    const other = await ledger.ensureAccount(database.db, 'escrow', owner, 'avax')
    expect(other).not.toBe(made.value)
    const balance = await ledger.account(database.db, made.value)
    expect(balance).toMatchObject({ kind: 'escrow', ownerId: owner, coin: 'usdc', balance: 0n, held: 0n })
  })

  it('answers one account to 20 concurrent callers', async () => {
    const owner = newId()
    const ids = await Promise.all(
      Array.from({ length: 20 }, () => inTx((tx) => ledger.ensureAccount(tx, 'user', owner, 'usdc'))),
    )
    expect(new Set(ids).size).toBe(1)
    const rows = await database.db
      .selectFrom('ledgerAccounts')
      .select('id')
      .where('kind', '=', 'user')
      .where('ownerId', '=', owner)
      .execute()
    expect(rows.map((r) => r.id)).toEqual([ids[0]])
  })

  it('answers the row a concurrent transaction committed after the statement began', async () => {
    const owner = newId()
    const { a, b, secondQueries } = await interleaved(
      (tx) => ledger.ensureAccount(tx, 'user', owner, 'avax'),
      (tx) => ledger.ensureAccount(tx, 'user', owner, 'avax'),
    )
    expect(b).toBe(a)
    // PostgreSQL: the insert did nothing and its snapshot missed the row, a second read found it
    expect(secondQueries).toBe(database.kind === 'postgres' ? 2 : 1)
  })
})

describe('custodial keys made when missing', () => {
  it('takes one statement for a new key and one for an existing one, answering the stored key', async () => {
    const owner = newId()
    const made = await counted(() => inTx((tx) => keys.ensure(tx, 'escrow', owner)))
    expect(made.queries).toBe(1)
    expect(made.value).toMatchObject({ ownerKind: 'escrow', ownerId: owner, exportedAt: null })
    expect(made.value.address).toMatch(/^0x[0-9a-f]{40}$/)
    await expectKeyOpens(made.value.address)
    const again = await counted(() => inTx((tx) => keys.ensure(tx, 'escrow', owner)))
    expect(again).toEqual({ value: made.value, queries: 1 })
    expect(await keys.find(database.db, 'escrow', owner)).toEqual(made.value)
  })

  it('answers one key to 20 concurrent callers, the one stored', async () => {
    const owner = newId()
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => inTx((tx) => keys.ensure(tx, 'user', owner))),
    )
    expect(new Set(answers.map((k) => k.id)).size).toBe(1)
    expect(new Set(answers.map((k) => k.address)).size).toBe(1)
    const rows = await database.db
      .selectFrom('walletKeys')
      .select(['id', 'address'])
      .where('ownerKind', '=', 'user')
      .where('ownerId', '=', owner)
      .execute()
    expect(rows).toEqual([{ id: answers[0]!.id, address: answers[0]!.address }])
    await expectKeyOpens(answers[0]!.address)
  })

  it('answers the key a concurrent transaction committed after the statement began', async () => {
    const owner = newId()
    const { a, b, secondQueries } = await interleaved(
      (tx) => keys.ensure(tx, 'treasury', owner),
      (tx) => keys.ensure(tx, 'treasury', owner),
    )
    expect(b).toEqual(a)
    expect(secondQueries).toBe(database.kind === 'postgres' ? 2 : 1)
    await expectKeyOpens(a.address)
  })
})
