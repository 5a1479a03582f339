// A run of `outgoing.send` records its job done in its last transaction (its settlement, its
// deferral or its failed attempt), and records the first broadcast there too. When that
// transaction rolls back, the job is left to the next one the run commits, or, when the run ends
// without one, the queue records the run failed and the job runs again: never a job done without
// its work, nor work done twice.
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
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
})
afterEach(() => {
  t.crash.hook = undefined
})
afterAll(() => t?.close())

/** The `outgoing.send` jobs of a transfer, oldest first. */
function sendJobs(transferId: string) {
  return t.database.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'lastError'])
    .where('kind', '=', 'outgoing.send')
    .where(sql<string>`payload->>'id'`, '=', transferId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute()
}

function transfer(id: string) {
  return t.database.db
    .selectFrom('outgoingTransfers')
    .select(['status', 'failures', 'broadcastAt', 'txHash'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
}

async function withdrawal(index: number) {
  const user = await createUser(t)
  await fundUser(t, index, user, 'avax', 2n * AVAX)
  const { transferId } = await withdrawAvax(t, user, 0.5, freshAddress())
  return transferId
}

it('a settlement that rolls back leaves the job to the failed attempt that follows, in its own transaction', async () => {
  const transferId = await withdrawal(3)
  let failed = 0
  t.crash.hook = (at, id) => {
    if (at !== 'after-hold-post' || id !== transferId || failed > 0) return
    failed++
    throw new Error('the disk is full')
  }
  await settleAll(t)
  expect(failed).toBe(1)

  const done = await transfer(transferId)
  expect(done.status).toBe('completed')
  // The failed attempt was counted, and the broadcast recorded by that attempt's transaction.
  expect(done.failures).toBe(1)
  expect(done.broadcastAt).not.toBeNull()
  // Every run's job is done; the run whose settlement rolled back was recorded by its failed
  // attempt's transaction, not failed by the queue.
  const jobs = await sendJobs(transferId)
  expect(jobs.length).toBeGreaterThanOrEqual(2)
  expect(jobs.map((j) => [j.status, j.lastError])).toEqual(jobs.map(() => ['done', null]))
  await expectConsistent(t)
})

it('a run whose last transaction rolls back and that commits none after it ends failed, and its job runs again', async () => {
  const transferId = await withdrawal(4)
  const sender = t.app.services.outgoing
  const load = sender.load.bind(sender)
  let failed = 0
  let settledElsewhere = false
  t.crash.hook = (at, id) => {
    if (at !== 'after-hold-post' || id !== transferId || failed > 0) return
    failed++
    throw new Error('the disk is full')
  }
  // The failed attempt's first read finds the transfer settled by another run meanwhile (a run
  // without a job, as an operator's tool makes): it has nothing to write.
  sender.load = async (ex, id, forUpdate) => {
    if (failed === 1 && !settledElsewhere && id === transferId && !ex.isTransaction) {
      settledElsewhere = true
      t.crash.hook = undefined
      await sender.run(transferId)
    }
    return load(ex, id, forUpdate)
  }
  try {
    await settleAll(t)
  } finally {
    sender.load = load
  }
  // The failed run's job is due again after its backoff.
  t.clock.advance(60_000)
  await t.drain()
  expect(failed).toBe(1)
  expect(settledElsewhere).toBe(true)

  const done = await transfer(transferId)
  expect(done.status).toBe('completed')
  expect(done.failures).toBe(0)
  // The run that committed nothing was failed by the queue, ran again, found the transfer settled.
  const jobs = await sendJobs(transferId)
  const rerun = jobs.find((j) => j.attempts > 1)
  expect(rerun).toMatchObject({ status: 'done' })
  expect(rerun!.lastError).toMatch(/did not commit/)
  expect(jobs.every((j) => j.status === 'done')).toBe(true)
  await expectConsistent(t)
})
