// When a transfer settles, the transfer of the same address at the next later nonce is looked at
// at once: its scheduled check is made due now (not a second run written beside it). A check that
// a worker holds just then is left to look for its receipt itself: nothing is added for it.
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
  // One top-up brings the gas of every send below.
  t.app.services.outgoing.options.topUpFactor = 100n
})
afterAll(async () => {
  await t?.close()
})

const db = () => t.database.db

const rowOf = (id: string) =>
  db()
    .selectFrom('outgoingTransfers')
    .select(['status', 'wakeSeq'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

/** The jobs of transfer `id` under `key` (the transfer's scheduled run, or a wake of its own). */
const jobsUnder = (key: string) =>
  db().selectFrom('jobs').select(['status', 'runAt']).where('dedupeKey', '=', key).execute()

it('makes the next nonce’s scheduled check due, and adds nothing for a check a worker holds', async () => {
  const user = await createUser(t)
  await fundUser(t, 5, user, 'avax', 3n * AVAX)
  await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
  const devnet = t.app.services.chain.devnet!
  const { outgoing } = t.app.services
  onTestFinished(() => devnet.setAutomine(true))

  // Three transfers signed and broadcast at consecutive nonces, none mined yet: each has its next
  // check scheduled a few seconds away.
  await devnet.setAutomine(false)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)
  await t.drain()
  const [a, b, c] = ids as [string, string, string]
  for (const id of ids) expect((await rowOf(id)).status).toBe('sent')
  const keyOf = async (id: string) => `outgoing.send:${id}:${(await rowOf(id)).wakeSeq}`
  const bKey = await keyOf(b)
  const cKey = await keyOf(c)
  const now = t.clock.now().getTime()
  for (const key of [bKey, cKey]) {
    const [job] = await jobsUnder(key)
    expect(job!.status).toBe('queued')
    expect(new Date(job!.runAt).getTime()).toBeGreaterThan(now)
  }
  await devnet.mine(1)

  // The first settles: the second's check is due now; no run of its own is written.
  await outgoing.run(a)
  expect((await rowOf(a)).status).toBe('completed')
  const [bJob] = await jobsUnder(bKey)
  expect(bJob!.status).toBe('queued')
  expect(new Date(bJob!.runAt).getTime()).toBeLessThanOrEqual(t.clock.now().getTime())
  expect(await jobsUnder(`outgoing.send:${b}:after:${a}`)).toEqual([])

  // A worker holds the third's check when the second settles: it is left as it is.
  const [cBefore] = await jobsUnder(cKey)
  await db().updateTable('jobs').set({ status: 'running' }).where('dedupeKey', '=', cKey).execute()
  await outgoing.run(b)
  expect((await rowOf(b)).status).toBe('completed')
  const [cHeld] = await jobsUnder(cKey)
  expect(cHeld!.status).toBe('running')
  expect(new Date(cHeld!.runAt).getTime()).toBe(new Date(cBefore!.runAt).getTime())
  expect(await jobsUnder(`outgoing.send:${c}:after:${b}`)).toEqual([])

  // The worker's run finds the receipt itself (here: the claim handed back and run).
  await db().updateTable('jobs').set({ status: 'queued' }).where('dedupeKey', '=', cKey).execute()
  t.clock.advance(60_000)
  await t.drain()
  for (const id of ids) expect((await rowOf(id)).status).toBe('completed')
  await expectConsistent(t)
})
