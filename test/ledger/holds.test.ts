// Two-phase holds and input-checked idempotency on a real database: a hold reserves available
// funds, is posted (in full or in part) or voided at most once, and a key reused with another
// input is a conflict.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { AppError } from '../../src/http/errors.ts'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { ledgerInvariants } from '../../src/modules/settlement/reconcile/checks.ts'
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

const tx = <T>(fn: (tx: any) => Promise<T>) => database.db.transaction().execute(fn)

async function funded(amount: bigint, coin = 'usdc') {
  const accounts = await fundedAccount(database.db, ledger, amount, coin)
  return { ...accounts, fee: await ledger.ensureAccount(database.db, 'platform_fee', '', coin) }
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(AppError)
  return err as AppError
}

describe('idempotency keys carry their input', () => {
  it('replays the same input and refuses the same key with another input', async () => {
    const { user, clearing } = await funded(1_000n)
    const input = {
      key: `k:${newId()}`,
      coin: 'usdc',
      kind: 'test',
      legs: [
        { account: user, amount: -100n },
        { account: clearing, amount: 100n },
      ],
    }
    const first = await tx((t) => ledger.transfer(t, input))
    const again = await tx((t) => ledger.transfer(t, { ...input, description: 'other text is not input' }))
    expect(again).toEqual({ id: first.id, replayed: true })
    for (const other of [
      { ...input, kind: 'other' },
      {
        ...input,
        legs: [
          { account: user, amount: -101n },
          { account: clearing, amount: 101n },
        ],
      },
    ]) {
      const err = await rejection(tx((t) => ledger.transfer(t, other)))
      expect(err.code).toBe('IDEMPOTENCY_KEY_REUSED')
    }
    expect(
      await ledger.balance(database.db, 'user', (await ledger.account(database.db, user))!.ownerId, 'usdc'),
    ).toBe(900n)
  })

  it('refuses a hold key reused for another amount or account', async () => {
    const a = await funded(1_000n)
    const b = await funded(1_000n)
    const key = `h:${newId()}`
    const first = await tx((t) => ledger.hold(t, { key, coin: 'usdc', account: a.user, amount: 300n }))
    const again = await tx((t) => ledger.hold(t, { key, coin: 'usdc', account: a.user, amount: 300n }))
    expect(again).toEqual({ id: first.id, replayed: true })
    expect(
      (await rejection(tx((t) => ledger.hold(t, { key, coin: 'usdc', account: a.user, amount: 301n })))).code,
    ).toBe('IDEMPOTENCY_KEY_REUSED')
    expect(
      (await rejection(tx((t) => ledger.hold(t, { key, coin: 'usdc', account: b.user, amount: 300n })))).code,
    ).toBe('IDEMPOTENCY_KEY_REUSED')
    expect(await ledger.balance(database.db, 'user', a.owner, 'usdc')).toBe(700n)
  })
})

describe('holds', () => {
  it('reserves available funds and refuses to reserve or spend beyond them', async () => {
    const { owner, user, clearing } = await funded(1_000n)
    await tx((t) => ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 600n }))
    const view = await ledger.account(database.db, user)
    expect(view).toMatchObject({ balance: 1_000n, held: 600n, available: 400n })
    expect(await ledger.balance(database.db, 'user', owner, 'usdc')).toBe(400n)
    const over = await rejection(
      tx((t) => ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 401n })),
    )
    expect(over.code).toBe('INSUFFICIENT_BALANCE')
    const spend = await rejection(
      tx((t) =>
        ledger.transfer(t, {
          key: `t:${newId()}`,
          coin: 'usdc',
          legs: [
            { account: user, amount: -401n },
            { account: clearing, amount: 401n },
          ],
        }),
      ),
    )
    expect(spend.code).toBe('INSUFFICIENT_BALANCE')
    await expectLedgerConsistent(database.db)
  })

  it('posts in part: the posted amount moves, the rest is released', async () => {
    const { owner, user, clearing, fee } = await funded(1_000n)
    const hold = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 500n }),
    )
    const before = await ledger.balance(database.db, 'platform_fee', '', 'usdc')
    const posted = await tx((t) =>
      ledger.post(t, {
        hold: hold.id,
        to: [
          { account: clearing, amount: 300n },
          { account: fee, amount: 50n },
        ],
        key: `p:${hold.id}`,
      }),
    )
    expect(posted).toMatchObject({ status: 'posted', changed: true, postedAmount: 350n })
    expect(await ledger.account(database.db, user)).toMatchObject({
      balance: 650n,
      held: 0n,
      available: 650n,
    })
    expect(await ledger.balance(database.db, 'platform_fee', '', 'usdc')).toBe(before + 50n)
    expect(await ledger.balance(database.db, 'user', owner, 'usdc')).toBe(650n)
    const entries = await ledger.entries(database.db, posted.transferId!)
    expect(entries.reduce((s, e) => s + e.amount, 0n)).toBe(0n)
    await expectLedgerConsistent(database.db)
  })

  it('posts in two statements, the hold marked posted only with its transfer written', async () => {
    const { user, clearing } = await funded(1_000n)
    // The shapes of the accounts known first, so that the count is of the post alone.
    await tx((t) =>
      ledger.transfer(t, {
        key: `warm:${newId()}`,
        coin: 'usdc',
        legs: [
          { account: user, amount: -1n },
          { account: clearing, amount: 1n },
        ],
      }),
    )
    const first = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 100n }),
    )
    const before = database.queryCount()
    const posted = await tx((t) =>
      ledger.post(t, { hold: first.id, to: [{ account: clearing, amount: 60n }], key: `p:${first.id}` }),
    )
    expect(database.queryCount() - before).toBe(2)
    const row = await database.db
      .selectFrom('ledgerHolds')
      .select(['status', 'postedAmount', 'transferId', 'resolutionKey', 'resolvedAt'])
      .where('id', '=', first.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      status: 'posted',
      postedAmount: '60',
      transferId: posted.transferId,
      resolutionKey: `p:${first.id}`,
    })
    expect(row.resolvedAt).toBeInstanceOf(Date)

    // A post whose key another transfer already claimed writes no transfer: even when the caller
    // goes on and commits, the hold stays pending and reserved.
    const second = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 100n }),
    )
    const taken = `taken:${newId()}`
    await tx((t) =>
      ledger.transfer(t, {
        key: taken,
        coin: 'usdc',
        legs: [
          { account: user, amount: -1n },
          { account: clearing, amount: 1n },
        ],
      }),
    )
    const refused = await tx(async (t) => {
      try {
        await ledger.post(t, { hold: second.id, to: [{ account: clearing, amount: 100n }], key: taken })
        return undefined
      } catch (err) {
        return err as Error
      }
    })
    expect(refused?.message).toMatch(/idempotency key was already used/)
    expect(await ledger.getHold(database.db, second.id)).toMatchObject({
      status: 'pending',
      transferId: null,
    })
    expect(await ledger.account(database.db, user)).toMatchObject({ held: 100n })
    await expectLedgerConsistent(database.db)
  })

  it('answers the first result to the same key, and refuses a second post or void under another key', async () => {
    const { user, clearing } = await funded(1_000n)
    const a = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 200n }),
    )
    const postA = (key: string, amount = 200n) =>
      tx((t) => ledger.post(t, { hold: a.id, to: [{ account: clearing, amount }], key }))
    const first = await postA(`p:${a.id}`)
    expect(first).toMatchObject({ status: 'posted', changed: true, postedAmount: 200n })
    // The same post again (a retry after a crash): its first answer, nothing moved.
    expect(await postA(`p:${a.id}`)).toEqual({ ...first, changed: false })
    // The same key with other legs is another movement.
    expect((await rejection(postA(`p:${a.id}`, 150n))).code).toBe('IDEMPOTENCY_KEY_REUSED')
    expect((await rejection(postA(`p2:${a.id}`))).code).toBe('HOLD_ALREADY_POSTED')
    expect(await rejection(tx((t) => ledger.void(t, { hold: a.id, key: `p:${a.id}` })))).toMatchObject({
      code: 'HOLD_ALREADY_POSTED',
    })
    expect(await ledger.account(database.db, user)).toMatchObject({ balance: 800n, held: 0n })

    const b = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 300n }),
    )
    const voidB = (key: string) => tx((t) => ledger.void(t, { hold: b.id, key }))
    expect(await voidB(`v:${b.id}`)).toMatchObject({ status: 'voided', changed: true })
    expect(await voidB(`v:${b.id}`)).toMatchObject({ status: 'voided', changed: false })
    expect((await rejection(voidB(`v2:${b.id}`))).code).toBe('HOLD_ALREADY_VOIDED')
    const postAfterVoid = tx((t) =>
      ledger.post(t, { hold: b.id, to: [{ account: clearing, amount: 300n }], key: `v:${b.id}` }),
    )
    expect((await rejection(postAfterVoid)).code).toBe('HOLD_ALREADY_VOIDED')
    expect(await ledger.account(database.db, user)).toMatchObject({
      balance: 800n,
      held: 0n,
      available: 800n,
    })
    await expectLedgerConsistent(database.db)
  })

  it('voids a hold whose timeout passed, and refuses to post or void it after', async () => {
    const { user, clearing } = await funded(1_000n)
    const clock = { now: () => new Date(now) }
    let now = Date.now()
    const timed = new Ledger({ clock })
    const expiresAt = new Date(now + 60_000)
    const h = await tx((t) =>
      timed.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 250n, expiresAt }),
    )
    const other = await tx((t) =>
      timed.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 50n }),
    )
    expect(await timed.expireDue(database.db)).toBe(0)
    expect(await timed.account(database.db, user)).toMatchObject({ held: 300n, available: 700n })
    now += 60_000
    // Past its timeout and not swept yet: no longer postable.
    const late = tx((t) =>
      timed.post(t, { hold: h.id, to: [{ account: clearing, amount: 250n }], key: `p:${h.id}` }),
    )
    expect((await rejection(late)).code).toBe('HOLD_EXPIRED')
    expect(await timed.expireDue(database.db)).toBe(1)
    expect(await timed.expireDue(database.db)).toBe(0)
    expect(await timed.getHold(database.db, h.id)).toMatchObject({ status: 'voided', expired: true })
    expect(await timed.getHold(database.db, other.id)).toMatchObject({ status: 'pending', expired: false })
    expect(await timed.account(database.db, user)).toMatchObject({
      balance: 1_000n,
      held: 50n,
      available: 950n,
    })
    const voidLate = tx((t) => timed.void(t, { hold: h.id, key: `v:${h.id}` }))
    expect((await rejection(voidLate)).code).toBe('HOLD_EXPIRED')
    await expectLedgerConsistent(database.db)
  })

  it('refuses to post more than was held', async () => {
    const { user, clearing } = await funded(1_000n)
    const h = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 100n }),
    )
    await expect(
      tx((t) => ledger.post(t, { hold: h.id, to: [{ account: clearing, amount: 101n }], key: `p:${h.id}` })),
    ).rejects.toThrow(/outside/)
    expect(await ledger.account(database.db, user)).toMatchObject({ balance: 1_000n, held: 100n })
  })

  it('never reserves more than the balance under concurrent holds', async () => {
    const { user } = await funded(1_000n)
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () =>
        tx((t) => ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 100n })),
      ),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10)
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as AppError).code).toBe('INSUFFICIENT_BALANCE')
    expect(await ledger.account(database.db, user)).toMatchObject({
      balance: 1_000n,
      held: 1_000n,
      available: 0n,
    })
  })

  it('posts a hold exactly once under concurrent posts and voids', async () => {
    const { user, clearing } = await funded(1_000n)
    const h = await tx((t) =>
      ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 400n }),
    )
    // Each caller with its own key (as two different owners would): one resolves the hold, every
    // other is refused with what happened to it; nothing moves twice.
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        tx((t) =>
          i % 2
            ? ledger.void(t, { hold: h.id, key: `v:${i}:${h.id}` })
            : ledger.post(t, {
                hold: h.id,
                to: [{ account: clearing, amount: 400n }],
                key: `p:${i}:${h.id}`,
              }),
        ),
      ),
    )
    const won = results.filter((r) => r.status === 'fulfilled')
    expect(won).toHaveLength(1)
    const outcome = (won[0] as PromiseFulfilledResult<{ status: string; changed: boolean }>).value
    expect(outcome.changed).toBe(true)
    const refused = outcome.status === 'posted' ? 'HOLD_ALREADY_POSTED' : 'HOLD_ALREADY_VOIDED'
    for (const r of results) if (r.status === 'rejected') expect((r.reason as AppError).code).toBe(refused)
    const view = (await ledger.account(database.db, user))!
    expect(view.held).toBe(0n)
    expect([600n, 1_000n]).toContain(view.balance)
    await expectLedgerConsistent(database.db)
  })
})

describe('system accounts', () => {
  it('take many concurrent credits with no cached balance to queue on', async () => {
    const users = await Promise.all(Array.from({ length: 20 }, () => funded(100n)))
    const before = await ledger.balance(database.db, 'platform_fee', '', 'usdc')
    await Promise.all(
      users.map((u) =>
        tx((t) =>
          ledger.transfer(t, {
            key: `fee:${u.owner}`,
            coin: 'usdc',
            legs: [
              { account: u.user, amount: -10n },
              { account: u.fee, amount: 10n },
            ],
          }),
        ),
      ),
    )
    expect(await ledger.balance(database.db, 'platform_fee', '', 'usdc')).toBe(before + 200n)
    const fee = (await ledger.account(database.db, users[0]!.fee))!
    expect(fee.balance).toBe(before + 200n)
    await expectLedgerConsistent(database.db)
  })

  it('cannot be held', async () => {
    const { fee } = await funded(1n)
    await expect(
      tx((t) => ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: fee, amount: 1n })),
    ).rejects.toThrow(/cannot be held/)
  })
})

describe('held amounts and retired kinds', () => {
  it('reconciliation finds an account whose held amount is not its pending holds', async () => {
    const { user } = await funded(1_000n)
    await tx((t) => ledger.hold(t, { key: `h:${newId()}`, coin: 'usdc', account: user, amount: 300n }))
    expect(await ledgerInvariants(database.db)).toEqual([])
    // A cached held amount that drifted from the holds (within the balance, so only this check sees it).
    await sql`update ledger_accounts set held = held + 1 where id = ${user}`.execute(database.db)
    const found = await ledgerInvariants(database.db)
    expect(found).toEqual([
      {
        check: 'held_not_holds',
        coin: 'usdc',
        id: user,
        detail: expect.objectContaining({ held: '301', pending: '300' }),
      },
    ])
    await sql`update ledger_accounts set held = held - 1 where id = ${user}`.execute(database.db)
    expect(await ledgerInvariants(database.db)).toEqual([])
  })

  it('opens no account of the retired withdrawal_hold kind and credits none', async () => {
    const { user, owner } = await funded(1_000n)
    await expect(
      ledger.ensureAccount(database.db, 'withdrawal_hold' as never, owner, 'usdc'),
    ).rejects.toThrow(/retired/)
    // One left from before the upgrade may be debited (to clear it) but never credited.
    const parked = newId()
    await sql`
      insert into ledger_accounts (id, kind, owner_id, coin, balance, created_at, updated_at)
      values (${parked}, 'withdrawal_hold', ${owner}, 'usdc', 0, now(), now())`.execute(database.db)
    await expect(
      tx((t) =>
        ledger.transfer(t, {
          key: `k:${newId()}`,
          coin: 'usdc',
          legs: [
            { account: user, amount: -5n },
            { account: parked, amount: 5n },
          ],
        }),
      ),
    ).rejects.toThrow(/retired/)
    expect(await ledger.balance(database.db, 'user', owner, 'usdc')).toBe(1_000n)
  })
})
