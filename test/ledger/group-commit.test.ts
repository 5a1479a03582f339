// Transfers submitted to the ledger's group commit (`Ledger.submit`): written together in batches,
// each still all-or-nothing on its own, with the answers of a transfer in its own transaction.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { Ledger } from '../../src/modules/ledger/service.ts'
import type { TransferInput } from '../../src/modules/ledger/types.ts'
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

const funded = (amount: bigint) => fundedAccount(database.db, ledger, amount)
const emptyAccount = async () => {
  const owner = newId()
  return { owner, user: await ledger.ensureAccount(database.db, 'user', owner, 'usdc') }
}
const move = (key: string, from: string, to: string, amount: bigint, more: Partial<TransferInput> = {}) =>
  ledger.submit(database.db, {
    key,
    coin: 'usdc',
    legs: [
      { account: from, amount: -amount },
      { account: to, amount },
    ],
    ...more,
  })
const codeOf = (r: PromiseSettledResult<unknown>) =>
  r.status === 'rejected' ? ((r.reason as { code?: string }).code ?? (r.reason as Error).message) : 'ok'

describe('ledger group commit', () => {
  it('writes many concurrent transfers in batches, each with its own entries', async () => {
    const db = database.db
    const ring = await Promise.all(Array.from({ length: 20 }, () => funded(1_000n)))
    const before = ledger.batchStats(db)
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        move(`ring:${ring[0]!.owner}:${i}`, ring[i % 20]!.user, ring[(i + 1) % 20]!.user, 5n),
      ),
    )
    const after = ledger.batchStats(db)
    expect(new Set(results.map((r) => r.id)).size).toBe(200)
    for (const r of results) expect(r.replayed).toBe(false)
    // Submitted together, they were not written one per transaction.
    expect(after.transfers - before.transfers).toBe(200)
    expect(after.batches - before.batches).toBeLessThan(200)
    expect(after.largest).toBeGreaterThan(1)
    // Around the ring, every account sent and received 10 times 5.
    for (const r of ring) expect(await ledger.balance(db, 'user', r.owner, 'usdc')).toBe(1_000n)
    const entries = await ledger.entries(db, results[7]!.id)
    expect(entries.map((e) => [e.accountId, e.amount])).toEqual(
      expect.arrayContaining([
        [ring[7]!.user, -5n],
        [ring[8]!.user, 5n],
      ]),
    )
    expect(entries).toHaveLength(2)
    await expectLedgerConsistent(db)
  })

  it('never oversells one balance under 50 concurrent debits, and refuses only those', async () => {
    const db = database.db
    const { owner, user } = await funded(1_000n)
    const escrow = await ledger.ensureAccount(db, 'escrow', owner, 'usdc')
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => move(`race:${owner}:${i}`, user, escrow, 70n)),
    )
    const codes = results.map(codeOf)
    // 1000 / 70 = 14 debits fit; the other 36 are refused, none fails otherwise.
    expect(codes.filter((c) => c === 'ok')).toHaveLength(14)
    expect(codes.filter((c) => c === 'INSUFFICIENT_BALANCE')).toHaveLength(36)
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(20n)
    expect(await ledger.balance(db, 'escrow', owner, 'usdc')).toBe(980n)
    // A refused transfer left nothing, not even its key: the same key may be used again.
    const refused = codes.indexOf('INSUFFICIENT_BALANCE')
    const again = await move(`race:${owner}:${refused}`, user, escrow, 20n)
    expect(again.replayed).toBe(false)
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(0n)
    await expectLedgerConsistent(db)
  })

  it('applies the transfers of a batch in order: a credit pays for a later debit', async () => {
    const db = database.db
    const rich = await funded(500n)
    const empty = await emptyAccount()
    const third = await funded(1n)
    // Once the process knows the accounts (kind and coin), transfers submitted together without
    // waiting queue in the order submitted; otherwise their order is that of concurrent
    // transactions, none.
    await move(`chain:${rich.owner}:0`, rich.user, empty.user, 1n)
    await move(`chain:${rich.owner}:00`, empty.user, third.user, 1n)
    const [credit, debit, overdraft] = await Promise.allSettled([
      move(`chain:${rich.owner}:1`, rich.user, empty.user, 300n),
      move(`chain:${rich.owner}:2`, empty.user, third.user, 300n),
      move(`chain:${rich.owner}:3`, empty.user, third.user, 1n),
    ])
    expect([credit, debit, overdraft].map(codeOf)).toEqual(['ok', 'ok', 'INSUFFICIENT_BALANCE'])
    expect(await ledger.balance(db, 'user', empty.owner, 'usdc')).toBe(0n)
    expect(await ledger.balance(db, 'user', third.owner, 'usdc')).toBe(302n)
    await expectLedgerConsistent(db)
  })

  it('counts pending holds: what is reserved cannot be moved', async () => {
    const db = database.db
    const { owner, user } = await funded(100n)
    const other = await emptyAccount()
    await db
      .transaction()
      .execute((tx) => ledger.hold(tx, { key: `hold:${owner}`, account: user, coin: 'usdc', amount: 60n }))
    const results = await Promise.allSettled([
      move(`held:${owner}:1`, user, other.user, 41n),
      move(`held:${owner}:2`, user, other.user, 40n),
    ])
    expect(results.map(codeOf)).toEqual(['INSUFFICIENT_BALANCE', 'ok'])
    expect(await ledger.balance(db, 'user', owner, 'usdc')).toBe(0n)
    await expectLedgerConsistent(db)
  })

  it('answers a key used before as its first transfer, and another input under it as a conflict', async () => {
    const db = database.db
    const a = await funded(1_000n)
    const b = await emptyAccount()
    // A key first used in a transaction of its own, then submitted.
    const first = await moveValue(db, ledger, { key: `k1:${a.owner}`, from: a.user, to: b.user, amount: 10n })
    expect(await move(`k1:${a.owner}`, a.user, b.user, 10n)).toEqual({ id: first.id, replayed: true })
    // The same key twice in one submission: one is written, the other answers it.
    const twice = await Promise.all([
      move(`k2:${a.owner}`, a.user, b.user, 7n),
      move(`k2:${a.owner}`, a.user, b.user, 7n),
    ])
    expect(twice[0]!.id).toBe(twice[1]!.id)
    expect(twice.map((r) => r.replayed).sort()).toEqual([false, true])
    // Another input under a used key moves nothing.
    const conflict = await Promise.allSettled([move(`k2:${a.owner}`, a.user, b.user, 8n)])
    expect(conflict.map(codeOf)).toEqual(['IDEMPOTENCY_KEY_REUSED'])
    expect(await ledger.balance(db, 'user', a.owner, 'usdc')).toBe(983n)
    await expectLedgerConsistent(db)
  })

  it('refuses a transfer naming an account gone since it was seen, and writes the rest', async () => {
    const db = database.db
    const a = await funded(100n)
    const goneOwner = newId()
    const gone = await ledger.ensureAccount(db, 'user', goneOwner, 'usdc')
    // Refused for its balance, after the ledger learned the account's kind and coin.
    await expect(move(`gone:${goneOwner}:0`, gone, a.user, 1n)).rejects.toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
    })
    await sql`delete from ledger_accounts where id = ${gone}`.execute(db)
    const results = await Promise.allSettled([
      move(`gone:${goneOwner}:1`, a.user, gone, 5n),
      move(`gone:${goneOwner}:2`, a.user, a.clearing, 5n),
    ])
    expect(results[0]!.status).toBe('rejected')
    expect(codeOf(results[0]!)).toMatch(/does not exist/)
    expect(codeOf(results[1]!)).toBe('ok')
    expect(await ledger.balance(db, 'user', a.owner, 'usdc')).toBe(95n)
    const claimed = await db
      .selectFrom('ledgerTransfers')
      .select('idempotencyKey')
      .where('idempotencyKey', 'like', `gone:${goneOwner}:%`)
      .execute()
    expect(claimed.map((r) => r.idempotencyKey)).toEqual([`gone:${goneOwner}:2`])
    await expectLedgerConsistent(db)
  })

  it('writes the others of a batch the database refuses as a whole, each alone', async () => {
    const db = database.db
    const a = await funded(100n)
    const b = await emptyAccount()
    // A description no text column takes (a NUL character) fails the batch's statement.
    const results = await Promise.allSettled([
      move(`nul:${a.owner}:0`, a.user, b.user, 1n),
      move(`nul:${a.owner}:1`, a.user, b.user, 2n),
      move(`nul:${a.owner}:2`, a.user, b.user, 3n, { description: 'bad\u0000text' }),
      move(`nul:${a.owner}:3`, a.user, b.user, 4n),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    expect(await ledger.balance(db, 'user', a.owner, 'usdc')).toBe(93n)
    await expectLedgerConsistent(db)
  })

  it('does not deadlock with transfers in their own transactions over the same accounts', async () => {
    const db = database.db
    const a = await funded(1_000n)
    const b = await funded(1_000n)
    const moves = Array.from({ length: 60 }, (_, i) => {
      const [from, to] = i % 2 ? [a.user, b.user] : [b.user, a.user]
      const key = `mix:${a.owner}:${i}`
      return i % 3 ? move(key, from, to, 10n) : moveValue(db, ledger, { key, from, to, amount: 10n })
    })
    await Promise.all(moves)
    expect(await ledger.balance(db, 'user', a.owner, 'usdc')).toBe(1_000n)
    expect(await ledger.balance(db, 'user', b.owner, 'usdc')).toBe(1_000n)
    await expectLedgerConsistent(db)
  })
})
