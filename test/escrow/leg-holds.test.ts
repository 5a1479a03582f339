// Escrow legs reserve with ledger holds, as withdrawals do: each open leg transfer has exactly one
// pending hold of its amount on the escrow's account, posted when the leg is mined and voided when
// it fails for good (exactly the held amount back); the migration that gives open legs of an
// existing database their holds; and the reconciliation's reservation invariants, broken on
// purpose.
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { convertOpenTransfers } from '../../src/db/migrations/0052-outgoing-funding-holds.ts'
import { reservationInvariants } from '../../src/modules/settlement/reconcile/reservations.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import { expectConsistent, initiate, post, sendFrom, settleAll } from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[1]!
const db = () => t.database.db
const raw = () => t.database.db as unknown as Kysely<any>

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

async function paidEscrow(amount = 100) {
  const q = await initiate(t, payer, receiver, { amount })
  await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status).toBe('paid')
  return q
}

/** The escrow's legs with their transfer and the transfer's funding hold. */
async function legHolds(escrowId: string) {
  const { rows } = await sql<{
    legId: string
    kind: string
    legAmount: string
    transferId: string
    transferStatus: string
    transferAmount: string
    holdId: string | null
    holdAccount: string | null
    holdAmount: string | null
    holdStatus: string | null
    postedAmount: string | null
  }>`
    select l.id as leg_id, l.kind, l.amount::text as leg_amount, t.id as transfer_id,
           t.status as transfer_status, t.amount::text as transfer_amount, h.id as hold_id,
           h.account_id as hold_account, h.amount::text as hold_amount, h.status as hold_status,
           h.posted_amount::text as posted_amount
    from escrow_legs l join outgoing_transfers t on t.id = l.outgoing_id
    left join ledger_holds h on h.id = t.funding_hold_id
    where l.escrow_id = ${escrowId} order by l.seq`.execute(raw())
  return rows
}

const escrowAccount = (escrowId: string) =>
  t.app.services.ledger.ensureAccount(db(), 'escrow', escrowId, 'avax')
const account = async (escrowId: string) =>
  (await t.app.services.ledger.account(db(), await escrowAccount(escrowId)))!

describe('escrow legs reserved by ledger holds', () => {
  it('holds each open leg on the escrow account and posts exactly that hold when mined', async () => {
    const q = await paidEscrow()
    const before = await account(q.escrowId)
    expect(before.held).toBe(0n)
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const open = await legHolds(q.escrowId)
    expect(open.length).toBeGreaterThan(0)
    const accountId = await escrowAccount(q.escrowId)
    let total = 0n
    for (const l of open) {
      expect(l.transferStatus).toBe('queued')
      expect(l.holdStatus).toBe('pending')
      expect(l.holdAccount).toBe(accountId)
      expect(l.holdAmount).toBe(l.legAmount)
      total += BigInt(l.legAmount)
    }
    // The balance is untouched until a leg is mined; what the legs reserve is not available.
    const during = await account(q.escrowId)
    expect(during.balance).toBe(before.balance)
    expect(during.held).toBe(total)
    expect(await reservationInvariants(db())).toEqual([])

    await settleAll(t)
    for (const l of await legHolds(q.escrowId)) {
      expect(l.transferStatus).toBe('completed')
      expect(l.holdStatus).toBe('posted')
      expect(l.postedAmount).toBe(l.legAmount)
    }
    const after = await account(q.escrowId)
    expect(after.held).toBe(0n)
    expect(after.balance).toBe(before.balance - total)
    expect(await reservationInvariants(db())).toEqual([])
    await expectConsistent(t)
  })

  it('gives back exactly the held amount when a leg fails for good, and holds it again on retry', async () => {
    const q = await paidEscrow()
    const before = await account(q.escrowId)
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const queued = await legHolds(q.escrowId)
    const held = queued.reduce((s, l) => s + BigInt(l.legAmount), 0n)
    expect((await account(q.escrowId)).available).toBe(before.available - held)
    const accept = refuseSends(t)
    try {
      for (let i = 0; i < 12; i++) {
        await t.drain()
        t.clock.advance(10 * 60_000)
      }
    } finally {
      accept()
    }
    const failed = await legHolds(q.escrowId)
    expect(failed.every((l) => l.transferStatus === 'failed' && l.holdStatus === 'voided')).toBe(true)
    const after = await account(q.escrowId)
    // Every voided hold gave back exactly what it held, and nothing moved.
    expect(after.balance).toBe(before.balance)
    expect(after.held).toBe(0n)
    expect(after.available).toBe(before.available)
    expect(await reservationInvariants(db())).toEqual([])

    const r = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    const retried = await legHolds(q.escrowId)
    expect(retried.every((l) => l.holdStatus === 'pending' && l.holdAmount === l.legAmount)).toBe(true)
    expect((await account(q.escrowId)).held).toBe(held)
    await settleAll(t)
    expect((await legHolds(q.escrowId)).every((l) => l.holdStatus === 'posted')).toBe(true)
    expect((await account(q.escrowId)).balance).toBe(before.balance - held)
    await expectConsistent(t)
  })
})

describe('migration 0052: open legs of an existing database get their holds', () => {
  it('holds each open leg funded by the escrow account, once, and the legs then settle', async () => {
    const q = await paidEscrow()
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const open = await legHolds(q.escrowId)
    // The shape the code before holds left: the transfer funded by the account, nothing held.
    for (const l of open) {
      await sql`update outgoing_transfers set funding_hold_id = null where id = ${l.transferId}`.execute(
        raw(),
      )
      await sql`update ledger_accounts set held = held - ${l.holdAmount}::numeric where id = ${l.holdAccount}`.execute(
        raw(),
      )
      await sql`delete from ledger_holds where id = ${l.holdId}`.execute(raw())
    }
    const broken = await reservationInvariants(db())
    expect(broken.map((v) => [v.check, v.id])).toEqual(
      open.map((l) => ['transfer_not_held', l.transferId]).sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    )

    expect(await convertOpenTransfers(raw())).toBe(open.length)
    expect(await convertOpenTransfers(raw())).toBe(0)
    const converted = await legHolds(q.escrowId)
    for (const l of converted) {
      expect(l.holdStatus).toBe('pending')
      expect(l.holdAmount).toBe(l.transferAmount)
    }
    expect(await reservationInvariants(db())).toEqual([])
    await settleAll(t)
    expect((await legHolds(q.escrowId)).every((l) => l.holdStatus === 'posted')).toBe(true)
    await expectConsistent(t)
  })
})

describe('reconciliation: the reservation invariants', () => {
  it('voids a hold whose timeout passed before it checks, so it is not left without an owner', async () => {
    const q = await paidEscrow()
    const accountId = await escrowAccount(q.escrowId)
    const before = await account(q.escrowId)
    const timed = await db()
      .transaction()
      .execute((tx) =>
        t.app.services.ledger.hold(tx, {
          key: `timed:${q.escrowId}`,
          coin: 'avax',
          account: accountId,
          amount: 5n,
          kind: 'test.timed',
          expiresAt: new Date(t.clock.now().getTime() + 60_000),
        }),
      )
    // Within its timeout a hold nobody owns is reported...
    expect((await reservationInvariants(db())).map((v) => [v.check, v.id])).toEqual([
      ['hold_without_owner', timed.id],
    ])
    // ...past it, the reconciliation run voids it first and finds nothing.
    t.clock.advance(61_000)
    const run = await t.app.services.settlement.reconciliation.runNow()
    expect(run.violations).toEqual([])
    expect(await t.app.services.ledger.getHold(db(), timed.id)).toMatchObject({
      status: 'voided',
      expired: true,
      resolutionKey: `hold:${timed.id}:expire`,
    })
    expect(await account(q.escrowId)).toMatchObject({ balance: before.balance, held: before.held })
  })

  it('reports a transfer whose hold was resolved, a hold of another amount, and a hold with no owner', async () => {
    const q = await paidEscrow()
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const [first, second] = await legHolds(q.escrowId)
    expect(await reservationInvariants(db())).toEqual([])
    // Broken on purpose, behind the code's back.
    // (the account's held amount follows, so that only the reservation is wrong)
    await sql`update ledger_holds set amount = amount - 1 where id = ${second!.holdId}`.execute(raw())
    await sql`update ledger_accounts set held = held - 1 where id = ${second!.holdAccount}`.execute(raw())
    const voided = await db()
      .transaction()
      .execute((tx) =>
        t.app.services.ledger.void(tx, { hold: first!.holdId!, key: `broken:${first!.holdId}` }),
      )
    expect(voided.changed).toBe(true)
    const orphan = await db()
      .transaction()
      .execute((tx) =>
        t.app.services.ledger.hold(tx, {
          key: `orphan:${q.escrowId}`,
          coin: 'avax',
          account: first!.holdAccount!,
          amount: 1n,
          kind: 'test',
        }),
      )
    const found = await reservationInvariants(db())
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          check: 'transfer_not_held',
          id: first!.transferId,
          detail: expect.objectContaining({ holdStatus: 'voided' }),
        }),
        expect.objectContaining({
          check: 'transfer_not_held',
          id: second!.transferId,
          detail: expect.objectContaining({ holdAmount: String(BigInt(second!.legAmount) - 1n) }),
        }),
        expect.objectContaining({ check: 'hold_without_owner', id: orphan.id }),
      ]),
    )
    expect(found).toHaveLength(3)
    // The reconciliation job reports them as it reports the ledger's own.
    const run = await t.app.services.settlement.reconciliation.runNow()
    expect(run.status).toBe('mismatch')
    expect(run.violations.map((v) => v.check).sort()).toEqual(
      ['hold_without_owner', 'transfer_not_held', 'transfer_not_held'].sort(),
    )
  })
})
