// The transfer written in one round trip (`ledger_write_transfer`, accounts known in process):
// all or nothing even when the caller commits after a refusal, no overdraft under concurrent
// debits and holds from several processes, idempotent replay, accounts the process remembers but
// the database does not have, and the step-by-step path for transfers that do not fit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database, Tx } from '../../src/db/index.ts'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { systemClock } from '../../src/platform/clock.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { openTestDatabase } from '../helpers/app.ts'
import { expectLedgerConsistent, fundedAccount, moveValue } from '../helpers/ledger.ts'

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
/** `amount` from one account to another through `l` (this process's ledger unless named). */
const move = (key: string, from: string, to: string, amount: bigint, l = ledger) =>
  moveValue(database.db, l, { key, from, to, amount })

const account = (id: string) => ledger.account(database.db, id)
const entriesOf = async (key: string) => {
  const t = await database.db
    .selectFrom('ledgerTransfers')
    .select('id')
    .where('idempotencyKey', '=', key)
    .executeTakeFirst()
  return t ? ledger.entries(database.db, t.id) : undefined
}

describe('a transfer in one round trip', () => {
  it('sends one statement once its accounts are known, and reads unknown ones once', async () => {
    const { user, clearing } = await funded(100n)
    const fresh = new Ledger({ clock: systemClock })
    const once = (key: string) => move(key, user, clearing, 1n, fresh)
    const statements = async (fn: () => Promise<unknown>) => {
      const before = database.queryCount()
      await fn()
      return database.queryCount() - before
    }
    expect(await statements(() => once(`n1:${user}`))).toBe(2)
    expect(await statements(() => once(`n2:${user}`))).toBe(1)
    // A replay reads the key's first transfer.
    expect(await statements(() => once(`n2:${user}`))).toBe(2)
    expect(await account(user)).toMatchObject({ balance: 98n })
  })

  it('counts as a write of the ledger tables for the read caches', async () => {
    const { user, clearing } = await funded(100n)
    database.caches.setOn(true)
    try {
      const cache = database.caches.create<bigint>('test balance', ['ledger_accounts'])
      let loads = 0
      const read = () =>
        cache.get(user, async () => {
          loads++
          return (await account(user))!.balance
        })
      expect(await read()).toBe(100n)
      expect(await read()).toBe(100n)
      expect(loads).toBe(1)
      await move(`cached:${user}`, user, clearing, 30n)
      expect(await read()).toBe(70n)
      expect(loads).toBe(2)
    } finally {
      database.caches.setOn(false)
    }
  })

  it('changes no balance when one debit of several overdraws, even if the caller commits anyway', async () => {
    const a = await funded(100n)
    const b = await funded(100n)
    const target = await ledger.ensureAccount(database.db, 'escrow', a.owner, 'usdc')
    const key = `split:${a.owner}`
    // The caller swallows the refusal and commits: only the key's claim may remain, no balance
    // moved and no entry written.
    const refusal = await tx(async (t) => {
      try {
        await ledger.transfer(t, {
          key,
          coin: 'usdc',
          legs: [
            { account: a.user, amount: -50n },
            { account: b.user, amount: -101n },
            { account: target, amount: 151n },
          ],
        })
        return 'written'
      } catch (err) {
        return (err as { code?: string }).code
      }
    })
    expect(refusal).toBe('INSUFFICIENT_BALANCE')
    expect(await account(a.user)).toMatchObject({ balance: 100n, held: 0n })
    expect(await account(b.user)).toMatchObject({ balance: 100n, held: 0n })
    expect(await account(target)).toMatchObject({ balance: 0n })
    expect(await entriesOf(key)).toEqual([])
    await expectLedgerConsistent(database.db)
  })

  it('refuses a debit beyond what pending holds leave, and takes it once the hold is voided', async () => {
    const { owner, user, clearing } = await funded(100n)
    const hold = await tx((t) =>
      ledger.hold(t, { key: `h:${owner}`, coin: 'usdc', account: user, amount: 60n }),
    )
    const spend = (key: string) => move(key, user, clearing, 50n)
    await expect(spend(`s1:${owner}`)).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' })
    // The refused transfer rolled back with its transaction: its key is free for the retry.
    expect(await entriesOf(`s1:${owner}`)).toBeUndefined()
    await tx((t) => ledger.void(t, { hold: hold.id, key: `v:${owner}` }))
    expect(await spend(`s1:${owner}`)).toMatchObject({ replayed: false })
    expect(await account(user)).toMatchObject({ balance: 50n, held: 0n, available: 50n })
    await expectLedgerConsistent(database.db)
  })

  it('never lets one balance below zero under debits, holds and posts from two processes at once', async () => {
    const { owner, user, clearing } = await funded(1_000n)
    const other = new Ledger({ clock: systemClock })
    const sink = await ledger.ensureAccount(database.db, 'escrow', owner, 'usdc')
    const ops = Array.from({ length: 60 }, (_, i) => {
      const l = i % 2 ? ledger : other
      if (i % 3 === 0)
        return tx(async (t) => {
          const h = await l.hold(t, { key: `rh:${owner}:${i}`, coin: 'usdc', account: user, amount: 45n })
          return l.post(t, { hold: h.id, to: [{ account: sink, amount: 40n }], key: `rp:${owner}:${i}` })
        })
      return move(`rt:${owner}:${i}`, user, i % 2 ? sink : clearing, 45n, l)
    })
    const results = await Promise.allSettled(ops)
    const outcomes = results.map(code)
    expect(outcomes.filter((c) => c !== 'ok' && c !== 'INSUFFICIENT_BALANCE')).toEqual([])
    const after = (await account(user))!
    expect(after.balance).toBeGreaterThanOrEqual(0n)
    expect(after.held).toBe(0n)
    // Every debit that succeeded is in the balance: 45 per transfer, 40 per posted hold.
    const spent = results.reduce(
      (sum, r, i) => (r.status === 'fulfilled' ? sum + (i % 3 === 0 ? 40n : 45n) : sum),
      0n,
    )
    expect(after.balance).toBe(1_000n - spent)
    // Refused only when nothing fitted any more (45 is the most any operation reserves).
    expect(after.balance).toBeLessThan(45n)
    await expectLedgerConsistent(database.db)
  })

  it('answers the first transfer to a replay from another process and 409 to another input', async () => {
    const { owner, user, clearing } = await funded(1_000n)
    const input = {
      key: `rp:${owner}`,
      coin: 'usdc',
      kind: 'test',
      legs: [
        { account: user, amount: -10n },
        { account: clearing, amount: 10n },
      ],
    }
    const other = new Ledger({ clock: systemClock })
    const [first, ...rest] = await Promise.all([
      tx((t) => ledger.transfer(t, input)),
      tx((t) => other.transfer(t, input)),
      tx((t) => ledger.transfer(t, input)),
    ])
    const written = [first!, ...rest].filter((r) => !r.replayed)
    expect(written).toHaveLength(1)
    for (const r of [first!, ...rest]) expect(r.id).toBe(written[0]!.id)
    await expect(
      tx((t) => other.transfer(t, { ...input, legs: [input.legs[0]!, { account: clearing, amount: 10n }] })),
    ).resolves.toEqual({ id: written[0]!.id, replayed: true })
    await expect(tx((t) => other.transfer(t, { ...input, kind: 'other' }))).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      statusCode: 409,
    })
    expect(await account(user)).toMatchObject({ balance: 990n })
    await expectLedgerConsistent(database.db)
  })

  it('moves value between system accounts, which it neither locks nor caches a balance of', async () => {
    const clearing = await ledger.ensureAccount(database.db, 'chain', 'test', 'usdc')
    const fee = await ledger.ensureAccount(database.db, 'platform_fee', '', 'usdc')
    const before = (await account(fee))!.balance
    const key = `sys:${newId()}`
    await move(key, clearing, fee, 7n)
    expect((await account(fee))!.balance).toBe(before + 7n)
    expect((await entriesOf(key))!.map((e) => e.amount).sort()).toEqual([-7n, 7n])
    await expectLedgerConsistent(database.db)
  })

  it('refuses an account it remembers but whose creation was rolled back', async () => {
    const { user } = await funded(100n)
    let ghost = ''
    await tx(async (t) => {
      ghost = await ledger.ensureAccount(t, 'escrow', newId(), 'usdc')
      // Read (and remembered) inside the transaction that created it...
      await ledger.transfer(t, {
        key: `ghost:first:${ghost}`,
        coin: 'usdc',
        legs: [
          { account: user, amount: -1n },
          { account: ghost, amount: 1n },
        ],
      })
      throw new Error('rolled back')
    }).catch(() => undefined)
    // ...which rolled back: the account does not exist, and nothing is written.
    const key = `ghost:${ghost}`
    await expect(move(key, ghost, user, 1n)).rejects.toThrow(/does not exist/)
    expect(await entriesOf(key)).toBeUndefined()
    expect(await account(user)).toMatchObject({ balance: 100n })
    await expectLedgerConsistent(database.db)
  })

  it('writes transfers that do not fit step by step, with the same errors', async () => {
    const { owner, user } = await funded(100n)
    const avax = await ledger.ensureAccount(database.db, 'chain', 'test', 'avax')
    const missing = newId()
    for (const [legs, message] of [
      [
        [
          { account: user, amount: -1n },
          { account: avax, amount: 1n },
        ],
        /holds avax, not usdc/,
      ],
      [
        [
          { account: user, amount: -1n },
          { account: missing, amount: 1n },
        ],
        new RegExp(`${missing} does not exist`),
      ],
    ] as const) {
      const key = `misfit:${owner}:${newId()}`
      await expect(tx((t) => ledger.transfer(t, { key, coin: 'usdc', legs: [...legs] }))).rejects.toThrow(
        message,
      )
      expect(await entriesOf(key)).toBeUndefined()
    }
    expect(await account(user)).toMatchObject({ balance: 100n })
    await expectLedgerConsistent(database.db)
  })
})
