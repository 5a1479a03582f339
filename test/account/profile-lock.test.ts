// The locks taken on an account's row to change it (a profile edit, an operator's moderation, a
// web3 sign-in's onboarding) serialise the account's own changes, but do not hold up other
// transactions that insert rows referencing the account: a job created with a new tag would
// otherwise wait for a profile save of its creator that waits for that tag's insert (a deadlock
// seen under mixed load), and a sign-in's new session for a suspension. PostgreSQL: the embedded
// database has one connection, so nothing there runs beside the open transaction.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Tx } from '../../src/db/index.ts'
import { moderationRepo } from '../../src/modules/account/moderation-repo.ts'
import { profileRepo } from '../../src/modules/account/repo.ts'
import { web3Repo } from '../../src/modules/auth/web3-repo.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { heldOpen } from '../helpers/held-transaction.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

type Lock = (tx: Tx, userId: string) => Promise<unknown>

const LOCKS: { name: string; lock: Lock }[] = [
  { name: 'the profile lock', lock: (tx, id) => profileRepo.lockUser(tx, id) },
  { name: 'the moderation lock', lock: (tx, id) => moderationRepo.lock(tx, id) },
  { name: 'the web3 onboarding lock', lock: (tx, id) => web3Repo.lockLiveUser(tx, id) },
]

/** Runs `then` while another transaction holds `lock` on the account's row. */
async function whileLocked<T>(lock: Lock, userId: string, then: () => Promise<T>): Promise<T> {
  const holder = await heldOpen(t.database.db, async (tx) => {
    expect(await lock(tx, userId)).toBeDefined()
  })
  try {
    return await then()
  } finally {
    await holder.release()
  }
}

/** `work` in a transaction that gives up on any lock after a second. */
const waitingAtMostASecond = <T>(work: (tx: Tx) => Promise<T>) =>
  t.database.db.transaction().execute(async (tx) => {
    await sql`set local lock_timeout = '1s'`.execute(tx)
    return work(tx)
  })

describe.runIf(process.env.TEST_DB === 'postgres').each(LOCKS)('$name on an account row', ({ lock }) => {
  it('lets another transaction insert a row that references the account', async () => {
    const u = await createUser(t)
    const id = newId()
    await whileLocked(lock, u.id, () =>
      waitingAtMostASecond((tx) => tx.insertInto('sessions').values({ id, userId: u.id }).execute()),
    )
    const row = await t.database.db
      .selectFrom('sessions')
      .select('userId')
      .where('id', '=', id)
      .executeTakeFirst()
    expect(row?.userId).toBe(u.id)
  })

  it('still makes a change of the same account wait, under any of the locks', async () => {
    const u = await createUser(t)
    for (const other of LOCKS) {
      const second = whileLocked(lock, u.id, () => waitingAtMostASecond((tx) => other.lock(tx, u.id)))
      await expect(second).rejects.toMatchObject({ code: '55P03' })
    }
  })
})
