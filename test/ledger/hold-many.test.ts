// Several holds on one account in one statement (`Ledger.holdMany`, `ledger_write_holds`): the
// account opened when missing, one statement once its id is known, all or nothing (a refusal
// leaves no hold even when the caller commits), the first hold's key standing for the request, the
// same hashes as `hold` (keys replay across both), no overdraft under concurrent requests, and a
// hold written in a transaction answered by `getHold` in it without a statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, Tx } from '../../src/db/index.ts'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { openTestDatabase } from '../helpers/app.ts'
import { expectLedgerConsistent, fundedAccount } from '../helpers/ledger.ts'

let database: Database
const ledger = new Ledger({ clock: systemClock })

beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(() => database.close())

const tx = <T>(fn: (tx: Tx) => Promise<T>) => database.db.transaction().execute(fn)
const code = (r: PromiseSettledResult<unknown>) =>
  r.status === 'rejected' ? ((r.reason as { code?: string }).code ?? String(r.reason)) : 'ok'
const funded = (amount: bigint) => fundedAccount(database.db, ledger, amount)
const account = (id: string) => ledger.account(database.db, id)
const holdsOf = (accountId: string) =>
  database.db
    .selectFrom('ledgerHolds')
    .select(['idempotencyKey', 'amount', 'status', 'kind'])
    .where('accountId', '=', accountId)
    .orderBy('idempotencyKey')
    .execute()

async function statements<T>(fn: () => Promise<T>): Promise<{ n: number; value: T }> {
  const before = database.queryCount()
  const value = await fn()
  return { n: database.queryCount() - before, value }
}

const two = (prefix: string, a: bigint, b: bigint) => [
  { key: `${prefix}:a`, amount: a, kind: 'test.a' },
  { key: `${prefix}:b`, amount: b, kind: 'test.b', description: 'second' },
]

describe('holdMany', () => {
  it('writes every hold and raises held once, in one statement once the account is known', async () => {
    const { owner, user } = await funded(100n)
    const fresh = new Ledger({ clock: systemClock })
    const p = newId()
    // This process does not know the account's id yet: the statement finds it, and runs again.
    const first = await statements(() =>
      tx((t) => fresh.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 30n, 5n) })),
    )
    expect(first.n).toBe(2)
    expect(first.value.account).toBe(user)
    expect(first.value.holds.map((h) => h.replayed)).toEqual([false, false])
    const q = newId()
    const second = await statements(() =>
      tx((t) => fresh.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(q, 10n, 1n) })),
    )
    expect(second.n).toBe(1)
    expect(await account(user)).toMatchObject({ balance: 100n, held: 46n, available: 54n })
    expect(await holdsOf(user)).toEqual([
      { idempotencyKey: `${p}:a`, amount: '30', status: 'pending', kind: 'test.a' },
      { idempotencyKey: `${p}:b`, amount: '5', status: 'pending', kind: 'test.b' },
      { idempotencyKey: `${q}:a`, amount: '10', status: 'pending', kind: 'test.a' },
      { idempotencyKey: `${q}:b`, amount: '1', status: 'pending', kind: 'test.b' },
    ])
    const [hold] = second.value.holds
    expect(await ledger.getHold(database.db, hold!.id)).toMatchObject({
      accountId: user,
      amount: 10n,
      status: 'pending',
      kind: 'test.a',
      expiresAt: null,
    })
    await expectLedgerConsistent(database.db)
  })

  it('opens a missing account (which then has nothing to hold)', async () => {
    const owner = newId()
    const refused = await tx(async (t) => {
      const r = await Promise.allSettled([
        ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(owner, 1n, 1n) }),
      ])
      return r.map(code)
    })
    expect(refused).toEqual(['INSUFFICIENT_BALANCE'])
    // The caller committed anyway: the account is open, empty, with no hold.
    const accounts = await ledger.accountsOf(database.db, 'user', owner)
    expect(accounts.usdc).toMatchObject({ balance: 0n, held: 0n })
    expect(await holdsOf(accounts.usdc!.id)).toEqual([])
  })

  it('refuses holds beyond the available balance together, leaving nothing even when the caller commits', async () => {
    const { owner, user } = await funded(100n)
    const p = newId()
    // Each fits alone; both together do not.
    const refused = await tx(async (t) => {
      const r = await Promise.allSettled([
        ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 60n, 41n) }),
      ])
      return r.map(code)
    })
    expect(refused).toEqual(['INSUFFICIENT_BALANCE'])
    expect(await holdsOf(user)).toEqual([])
    expect(await account(user)).toMatchObject({ balance: 100n, held: 0n })
    // Exactly the balance fits.
    await tx((t) =>
      ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 60n, 40n) }),
    )
    expect(await account(user)).toMatchObject({ available: 0n })
    await expectLedgerConsistent(database.db)
  })

  it('answers the first hold alone when its key was used, writing nothing', async () => {
    const { owner, user } = await funded(100n)
    const p = newId()
    const first = await tx((t) =>
      ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 30n, 5n) }),
    )
    // The same request again (its second hold's key is new: it would be a new request's).
    const again = await tx((t) =>
      ledger.holdMany(t, {
        kind: 'user',
        ownerId: owner,
        coin: 'usdc',
        holds: [two(p, 30n, 5n)[0]!, { key: `${newId()}:b`, amount: 5n }],
      }),
    )
    expect(again.holds).toEqual([{ id: first.holds[0]!.id, replayed: true }])
    expect(await account(user)).toMatchObject({ held: 35n })
    expect(await holdsOf(user)).toHaveLength(2)
    // The first key with another amount is a conflict.
    const other = await Promise.allSettled([
      tx((t) => ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 31n, 5n) })),
    ])
    expect(other.map(code)).toEqual(['IDEMPOTENCY_KEY_REUSED'])
  })

  it('refuses a later key used with another input, leaving the holds before it unwritten', async () => {
    const { owner, user } = await funded(100n)
    const p = newId()
    await tx((t) =>
      ledger.hold(t, { key: `${p}:b`, coin: 'usdc', account: user, amount: 7n, kind: 'test.b' }),
    )
    const refused = await tx(async (t) => {
      const r = await Promise.allSettled([
        ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 10n, 5n) }),
      ])
      return r.map(code)
    })
    expect(refused).toEqual(['IDEMPOTENCY_KEY_REUSED'])
    expect((await holdsOf(user)).map((h) => h.idempotencyKey)).toEqual([`${p}:b`])
    expect(await account(user)).toMatchObject({ held: 7n })
    // The same input as `hold` wrote: replayed, the first hold new.
    const r = await tx((t) =>
      ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: two(p, 10n, 7n) }),
    )
    expect(r.holds.map((h) => h.replayed)).toEqual([false, true])
    expect(await account(user)).toMatchObject({ held: 17n })
    await expectLedgerConsistent(database.db)
  })

  it('replays a key `hold` wrote, and `hold` replays one holdMany wrote', async () => {
    const { owner, user } = await funded(100n)
    const k1 = `single:${newId()}`
    const single = await tx((t) =>
      ledger.hold(t, { key: k1, coin: 'usdc', account: user, amount: 9n, kind: 'x' }),
    )
    const many = await tx((t) =>
      ledger.holdMany(t, {
        kind: 'user',
        ownerId: owner,
        coin: 'usdc',
        holds: [{ key: k1, amount: 9n, kind: 'x' }],
      }),
    )
    expect(many.holds).toEqual([{ id: single.id, replayed: true }])
    const k2 = `many:${newId()}`
    const written = await tx((t) =>
      ledger.holdMany(t, { kind: 'user', ownerId: owner, coin: 'usdc', holds: [{ key: k2, amount: 4n }] }),
    )
    const again = await tx((t) => ledger.hold(t, { key: k2, coin: 'usdc', account: user, amount: 4n }))
    expect(again).toEqual({ id: written.holds[0]!.id, replayed: true })
    expect(await account(user)).toMatchObject({ held: 13n })
  })

  it('never holds more than the balance under concurrent requests', async () => {
    const { owner, user } = await funded(100n)
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        tx((t) =>
          ledger.holdMany(t, {
            kind: 'user',
            ownerId: owner,
            coin: 'usdc',
            holds: two(`race:${owner}:${i}`, 20n, 5n),
          }),
        ),
      ),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4)
    expect(results.map(code).filter((c) => c !== 'ok')).toEqual(Array(4).fill('INSUFFICIENT_BALANCE'))
    expect(await account(user)).toMatchObject({ balance: 100n, held: 100n, available: 0n })
    expect(await holdsOf(user)).toHaveLength(8)
    await expectLedgerConsistent(database.db)
  })

  it('answers a hold written in the same transaction without reading it, until it is resolved', async () => {
    const { owner, user } = await funded(100n)
    const p = newId()
    await tx(async (t) => {
      const r = await ledger.holdMany(t, {
        kind: 'user',
        ownerId: owner,
        coin: 'usdc',
        holds: two(p, 10n, 2n),
      })
      const id = r.holds[0]!.id
      const read = await statements(() => ledger.getHold(t, id))
      expect(read.n).toBe(0)
      // as the row is (a ledger that wrote nothing here reads it)
      expect(read.value).toEqual(await new Ledger({ clock: systemClock }).getHold(t, id))
      await ledger.void(t, { hold: id, key: `${p}:void` })
      const after = await statements(() => ledger.getHold(t, id))
      expect(after.n).toBe(1)
      expect(after.value).toMatchObject({ status: 'voided', resolutionKey: `${p}:void` })
    })
    expect(await account(user)).toMatchObject({ held: 2n })
  })
})
