// One entry point per background duty: #14 does not scan the chain itself, it asks the watcher's
// job for a scan and waits a bounded time; the escrow learns of credited payments from the
// deposit.credited job, each applied once. Both database drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WATCH_JOB } from '../../src/modules/settlement/watcher/types.ts'
import { initiate } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { sendFrom } from '../helpers/money.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[5]!

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

const validate = (escrowId: string) =>
  t.req({ method: 'POST', url: '/v1/escrow/validate', payload: { escrowId }, token: payer.token })

const requests = () =>
  t.database.db
    .selectFrom('jobs')
    .select(['id', 'status'])
    .where('kind', '=', WATCH_JOB)
    .where('dedupeKey', 'like', '%:requested')
    .execute()

const escrowRow = (id: string) =>
  t.database.db
    .selectFrom('escrows')
    .select(['status', 'received'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

describe('POST /v1/escrow/validate (#14) and the watcher job', () => {
  it('answers from a scan the running worker made for it', async () => {
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    const q = await initiate(t, payer, receiver)
    await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
    const jobs = t.app.services.jobs
    jobs.start(20)
    try {
      const v = await validate(q.escrowId)
      expect(v.statusCode, v.body).toBe(200)
      expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 4.2 })
    } finally {
      await jobs.stop()
    }
    const events = await t.database.db
      .selectFrom('chainEvents')
      .select(['reportedAt', 'accountId', 'transferId'])
      .where('address', '=', q.address.toLowerCase())
      .execute()
    expect(events).toHaveLength(1)
    expect(events[0]!.reportedAt).toBeInstanceOf(Date)
    expect(events[0]!.transferId).not.toBeNull()
  })

  it('waits a bounded time when no worker runs, answers from the database, and asks once', async () => {
    const q = await initiate(t, payer, receiver)
    await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
    const started = Date.now()
    const [a, b] = await Promise.all([validate(q.escrowId), validate(q.escrowId)])
    const waited = Date.now() - started
    // the bounded wait (5 s by default) ran out before answering
    expect(waited).toBeGreaterThanOrEqual(4500)
    for (const v of [a, b]) expect(v.json().data).toMatchObject({ status: 'waiting', paymentAmount: 0 })
    // Both asked for the same scan: one pending request.
    expect(await requests()).toEqual([{ id: expect.any(String), status: 'queued' }])

    // A worker runs it (and the report it writes); the next answer needs no wait: the watcher's
    // cursor is at the head, so no scan is asked for.
    await t.drain()
    expect(await requests()).toEqual([])
    const v = await validate(q.escrowId)
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 4.2 })
    expect(await requests()).toEqual([])
  })

  it('applies each credited payment once, however often its report is handled', async () => {
    const q = await initiate(t, payer, receiver, { amount: 50 })
    const due = BigInt(q.amountToPayBaseUnits)
    await sendFrom(t, outsider(), q.address, 'avax', due / 2n)
    await t.app.services.settlement.watcher.scanNow()
    // Credited in the ledger; the escrow itself learns of it from the report.
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(due / 2n)
    expect(await escrowRow(q.escrowId)).toMatchObject({ status: 'waiting', received: '0' })
    const [job] = await t.database.db
      .selectFrom('jobs')
      .select(['payload'])
      .where('kind', '=', 'deposit.credited')
      .where('dedupeKey', 'like', 'deposit.credited:%')
      .orderBy('createdAt', 'desc')
      .limit(1)
      .execute()
    expect(job!.payload).toMatchObject({
      ownerKind: 'escrow',
      ownerId: q.escrowId,
      coin: 'avax',
      amount: (due / 2n).toString(),
      address: q.address.toLowerCase(),
    })
    const escrow = t.app.services.escrow
    await Promise.all([escrow.onDepositCredited(job!.payload), escrow.onDepositCredited(job!.payload)])
    await escrow.onDepositCredited(job!.payload)
    await t.drain()
    expect(await escrowRow(q.escrowId)).toMatchObject({ status: 'waiting', received: (due / 2n).toString() })

    await sendFrom(t, outsider(), q.address, 'avax', due / 2n)
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    expect(await escrowRow(q.escrowId)).toMatchObject({ status: 'paid', received: due.toString() })
    await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
  })

  it('sends a payment that arrives after the cancellation back once', async () => {
    const q = await initiate(t, payer, receiver, { amount: 50 })
    const payerAddress = (await t.app.services.keys.find(t.database.db, 'user', payer.id))!.address
    await sendFrom(t, outsider(), q.address, 'avax', 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    // Cancelled before the report is handled: the cancellation counts the payment itself.
    const c = await t.req({
      method: 'POST',
      url: '/v1/escrow/cancel',
      payload: { escrowId: q.escrowId },
      token: payer.token,
    })
    expect(c.statusCode, c.body).toBe(200)
    await sendFrom(t, outsider(), q.address, 'avax', 2n * 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    await t.drain()
    const legs = await t.database.db
      .selectFrom('escrowLegs')
      .select(['kind', 'amount', 'toAddress'])
      .where('escrowId', '=', q.escrowId)
      .orderBy('seq')
      .execute()
    expect(legs).toEqual([
      { kind: 'refund', amount: (10n ** 17n).toString(), toAddress: payerAddress },
      { kind: 'refund', amount: (2n * 10n ** 17n).toString(), toAddress: payerAddress },
    ])
    expect(await escrowRow(q.escrowId)).toMatchObject({
      status: 'cancelled',
      received: (3n * 10n ** 17n).toString(),
    })
  })
})
