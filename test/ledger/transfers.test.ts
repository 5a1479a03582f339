// The ledger on a real database: balanced transfers, no overdraft under concurrency, idempotency.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
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

const funded = (amount: bigint, coin = 'usdc') => fundedAccount(database.db, ledger, amount, coin)

describe('ledger', () => {
  it('creates an account once and moves value between accounts', async () => {
    const db = database.db
    const { owner, user } = await funded(1_000n)
    expect(await ledger.ensureAccount(db, 'user', owner, 'usdc')).toBe(user)
    const fee = await ledger.ensureAccount(db, 'platform_fee', '', 'usdc')
    const before = await ledger.balance(db, 'platform_fee', '', 'usdc')
    const res = await db.transaction().execute((tx) =>
      ledger.transfer(tx, {
        key: `fee:${owner}`,
        coin: 'usdc',
        legs: [
          { account: user, amount: -250n },
          { account: fee, amount: 250n },
        ],
      }),
    )
    expect(res.replayed).toBe(false)
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(750n)
    expect(await ledger.balance(db, 'platform_fee', '', 'usdc')).toBe(before + 250n)
    expect(await ledger.balances(db, 'user', owner)).toEqual({ usdc: 750n })
    const entries = await ledger.entries(db, res.id)
    expect(entries.map((e) => e.amount).sort()).toEqual([-250n, 250n].sort())
    await expectLedgerConsistent(db)
  })

  it('refuses unbalanced, empty and cross-coin transfers', async () => {
    const db = database.db
    const { user, clearing } = await funded(10n)
    await expect(
      db.transaction().execute((tx) =>
        ledger.transfer(tx, {
          key: `bad:${newId()}`,
          coin: 'usdc',
          legs: [
            { account: user, amount: -5n },
            { account: clearing, amount: 4n },
          ],
        }),
      ),
    ).rejects.toThrow(/does not balance/)
    await expect(
      db
        .transaction()
        .execute((tx) =>
          ledger.transfer(tx, { key: `bad:${newId()}`, coin: 'usdc', legs: [{ account: user, amount: 0n }] }),
        ),
    ).rejects.toThrow(/moves nothing/)
    const avax = await ledger.ensureAccount(db, 'chain', 'test', 'avax')
    await expect(
      db.transaction().execute((tx) =>
        ledger.transfer(tx, {
          key: `bad:${newId()}`,
          coin: 'usdc',
          legs: [
            { account: user, amount: -1n },
            { account: avax, amount: 1n },
          ],
        }),
      ),
    ).rejects.toThrow(/holds avax/)
    expect(
      await ledger.balance(
        db,
        'user',
        (
          await db
            .selectFrom('ledgerAccounts')
            .select('ownerId')
            .where('id', '=', user)
            .executeTakeFirstOrThrow()
        ).ownerId,
        'usdc',
      ),
    ).toBe(10n)
    await expectLedgerConsistent(db)
  })

  it('refuses an overdraft with INSUFFICIENT_BALANCE and leaves nothing behind', async () => {
    const db = database.db
    const { owner, user } = await funded(100n)
    const fee = await ledger.ensureAccount(db, 'platform_fee', '', 'usdc')
    const key = `over:${owner}`
    await expect(
      db.transaction().execute((tx) =>
        ledger.transfer(tx, {
          key,
          coin: 'usdc',
          legs: [
            { account: user, amount: -101n },
            { account: fee, amount: 101n },
          ],
        }),
      ),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE', statusCode: 422 })
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(100n)
    const transfer = await db
      .selectFrom('ledgerTransfers')
      .select('id')
      .where('idempotencyKey', '=', key)
      .executeTakeFirst()
    expect(transfer).toBeUndefined()
    await expectLedgerConsistent(db)
  })

  it('enforces non-negative balances in SQL too', async () => {
    const db = database.db
    const { user } = await funded(5n)
    await expect(sql`update ledger_accounts set balance = -1 where id = ${user}`.execute(db)).rejects.toThrow(
      /ledger_accounts_(non_negative|held)/,
    )
    const clearing = await ledger.ensureAccount(db, 'chain', 'test', 'usdc')
    expect(await ledger.account(db, clearing)).toMatchObject({ kind: 'chain' })
    expect((await ledger.account(db, clearing))!.balance < 0n).toBe(true)
  })

  it('replays an idempotency key without moving value twice', async () => {
    const db = database.db
    const { owner, user } = await funded(1_000n)
    const fee = await ledger.ensureAccount(db, 'platform_fee', '', 'usdc')
    const move = () =>
      db.transaction().execute((tx) =>
        ledger.transfer(tx, {
          key: `replay:${owner}`,
          coin: 'usdc',
          legs: [
            { account: user, amount: -300n },
            { account: fee, amount: 300n },
          ],
        }),
      )
    const first = await move()
    const second = await move()
    const concurrent = await Promise.all([move(), move(), move()])
    expect(second).toEqual({ id: first.id, replayed: true })
    for (const c of concurrent) expect(c).toEqual({ id: first.id, replayed: true })
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(700n)
    await expectLedgerConsistent(db)
  })

  it('never oversells one balance under 50 concurrent debits', async () => {
    const db = database.db
    const { owner, user } = await funded(1_000n)
    const hold = await ledger.ensureAccount(db, 'escrow', owner, 'usdc')
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        db.transaction().execute((tx) =>
          ledger.transfer(tx, {
            key: `race:${owner}:${i}`,
            coin: 'usdc',
            legs: [
              { account: user, amount: -70n },
              { account: hold, amount: 70n },
            ],
          }),
        ),
      ),
    )
    const ok = results.filter((r) => r.status === 'fulfilled').length
    const refused = results.filter(
      (r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'INSUFFICIENT_BALANCE',
    ).length
    // 1000 / 70 = 14 debits fit; the other 36 are refused, none fails otherwise.
    expect(ok).toBe(14)
    expect(refused).toBe(36)
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(20n)
    expect(await ledger.balance(db, 'escrow', owner, 'usdc')).toBe(980n)
    await expectLedgerConsistent(db)
  })

  it('does not deadlock when transfers lock the same accounts from opposite sides', async () => {
    const db = database.db
    const a = await funded(1_000n)
    const b = await funded(1_000n)
    const moves = Array.from({ length: 40 }, (_, i) => {
      const [from, to] = i % 2 ? [a.user, b.user] : [b.user, a.user]
      return db.transaction().execute((tx) =>
        ledger.transfer(tx, {
          key: `swap:${a.owner}:${i}`,
          coin: 'usdc',
          legs: [
            { account: from, amount: -10n },
            { account: to, amount: 10n },
          ],
        }),
      )
    })
    await Promise.all(moves)
    expect(await ledger.balance(db, 'user', a.owner, 'usdc')).toBe(1_000n)
    expect(await ledger.balance(db, 'user', b.owner, 'usdc')).toBe(1_000n)
    await expectLedgerConsistent(db)
  })
})
