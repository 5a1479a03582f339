// Transfers waiting for a gas top-up do not poll for it: each sleeps `topUpWaitMs` (a bound on a
// missed wake), asking the chain nothing while a top-up to its address is open, and the top-up's
// settlement wakes every transfer of its address still without gas, due at once (its scheduled run
// made due, or, where a worker holds that run, a run of its own). A top-up runs as a job of its own
// kind (`outgoing.topup`), on slots no other send takes, so a backlog of transfers waiting for
// top-ups never holds the top-ups up.
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const db = () => t.database.db

/** The queued runs of transfer `id` (either kind). */
async function queuedRuns(id: string) {
  const rows = await db()
    .selectFrom('jobs')
    .select(['kind', 'runAt', 'dedupeKey', 'payload'])
    .where('status', '=', 'queued')
    .where('kind', 'in', ['outgoing.send', 'outgoing.topup'])
    .execute()
  return rows.filter((r) => {
    const payload = typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload
    return payload.id === id
  })
}

const statusOf = async (id: string) =>
  (await db().selectFrom('outgoingTransfers').select('status').where('id', '=', id).executeTakeFirstOrThrow())
    .status

it("wakes the transfers waiting for gas when their address's top-up settles, long before their next check", async () => {
  const user = await createUser(t)
  await fundUser(t, 6, user, 'avax', 10n * AVAX)
  const address = (await walletAddress(t, user)).toLowerCase()
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)
  const { outgoing } = t.app.services
  const waitMs = outgoing.options.topUpWaitMs
  expect(waitMs).toBeGreaterThan(10_000)

  // Each transfer's first run finds no gas at the fresh address: the first asks for one top-up;
  // the others see it open and ask the chain nothing (no fees, no simulation). None of them looks
  // again before `topUpWaitMs`.
  const now = t.clock.now().getTime()
  await outgoing.run(ids[0]!)
  const chain = t.app.services.chain
  const fees = vi.spyOn(chain, 'estimateFees')
  const gas = vi.spyOn(chain, 'estimateTransferGas')
  try {
    for (const id of ids.slice(1)) await outgoing.run(id)
    expect(fees).not.toHaveBeenCalled()
    expect(gas).not.toHaveBeenCalled()
  } finally {
    fees.mockRestore()
    gas.mockRestore()
  }
  for (const id of ids) {
    expect(await statusOf(id)).toBe('queued')
    // (its first run's job, queued with the withdrawal, is still there: the runs above were direct)
    const next = (await queuedRuns(id)).filter((r) => r.dedupeKey === `outgoing.send:${id}:1`)
    expect(next).toHaveLength(1)
    expect(next[0]!.kind).toBe('outgoing.send')
    expect(new Date(next[0]!.runAt).getTime()).toBeGreaterThanOrEqual(now + waitMs)
  }
  const topUps = await db()
    .selectFrom('outgoingTransfers')
    .select(['id', 'status'])
    .where('purpose', '=', 'gas.topup')
    .where('toAddress', '=', address)
    .execute()
  expect(topUps).toHaveLength(1)
  const topUp = topUps[0]!
  // The top-up's runs are jobs of their own kind.
  const topUpRuns = await queuedRuns(topUp.id)
  expect(topUpRuns.map((r) => r.kind)).toEqual(['outgoing.topup'])

  // The top-up is sent and mined (the dev chain mines at once) and settles: every waiting transfer
  // is due now, woken by the top-up: its scheduled run made due, not a second run written beside it.
  await outgoing.run(topUp.id)
  expect(await statusOf(topUp.id)).toBe('completed')
  for (const id of ids) {
    const runs = await queuedRuns(id)
    expect(runs.map((r) => r.dedupeKey).sort()).toEqual([`outgoing.send:${id}:0`, `outgoing.send:${id}:1`])
    for (const r of runs) expect(new Date(r.runAt).getTime()).toBeLessThanOrEqual(t.clock.now().getTime())
  }

  // Within a few seconds (the watcher credits the top-up first), far less than `topUpWaitMs`,
  // every transfer has landed, and no later run of theirs is left to find them settled.
  for (let i = 0; i < 5 && (await Promise.all(ids.map(statusOf))).some((s) => s !== 'completed'); i++) {
    await t.drain()
    t.clock.advance(1_000)
  }
  expect(await Promise.all(ids.map(statusOf))).toEqual(ids.map(() => 'completed'))
  await t.drain()
  for (const id of ids) expect(await queuedRuns(id)).toEqual([])
  await expectConsistent(t)
})

it('writes a run of its own for a waiting transfer whose scheduled run a worker holds', async () => {
  const user = await createUser(t)
  await fundUser(t, 6, user, 'avax', 10n * AVAX)
  const address = (await walletAddress(t, user)).toLowerCase()
  const first = (await withdrawAvax(t, user, 0.01, freshAddress())).transferId
  const second = (await withdrawAvax(t, user, 0.01, freshAddress())).transferId
  const { outgoing } = t.app.services
  await outgoing.run(first)
  await outgoing.run(second)
  const scheduled = `outgoing.send:${second}:1`
  const later = new Date(t.clock.now().getTime() + outgoing.options.topUpWaitMs)
  // A worker has just claimed the second transfer's scheduled run (it may be deferring it again).
  await db()
    .updateTable('jobs')
    .set({ status: 'running', lockedUntil: later })
    .where('dedupeKey', '=', scheduled)
    .execute()
  const topUp = await db()
    .selectFrom('outgoingTransfers')
    .select('id')
    .where('purpose', '=', 'gas.topup')
    .where('toAddress', '=', address)
    .executeTakeFirstOrThrow()
  await outgoing.run(topUp.id)
  expect(await statusOf(topUp.id)).toBe('completed')
  const woken = (await queuedRuns(second)).filter(
    (r) => r.dedupeKey === `outgoing.send:${second}:after:${topUp.id}`,
  )
  expect(woken).toHaveLength(1)
  expect(woken[0]!.kind).toBe('outgoing.send')
  expect(new Date(woken[0]!.runAt).getTime()).toBeLessThanOrEqual(t.clock.now().getTime())
  // the first transfer's scheduled run was made due instead
  expect((await queuedRuns(first)).map((r) => r.dedupeKey)).not.toContain(
    `outgoing.send:${first}:after:${topUp.id}`,
  )
  // The worker hands its claim back; every run lands both transfers.
  await db()
    .updateTable('jobs')
    .set({ status: 'queued', lockedUntil: null })
    .where('dedupeKey', '=', scheduled)
    .execute()
  for (
    let i = 0;
    i < 5 && (await Promise.all([first, second].map(statusOf))).some((s) => s !== 'completed');
    i++
  ) {
    await t.drain()
    t.clock.advance(1_000)
  }
  expect(await Promise.all([first, second].map(statusOf))).toEqual(['completed', 'completed'])
  await t.drain()
  await expectConsistent(t)
})

it('runs top-ups on slots of their own, apart from the other sends', () => {
  const { jobs, outgoing } = t.app.services
  const groups = jobs.shares.map((s) => s.group)
  expect(groups).toEqual(expect.arrayContaining(['outgoing.send', 'outgoing.topup']))
  expect(outgoing.options.topUpConcurrency).toBeGreaterThan(0)
})
