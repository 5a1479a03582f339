// The lock a profile edit takes on its account's row (profileRepo.lockUser) serialises the
// account's own edits, but does not hold up other transactions that insert rows referencing the
// account: a job created with a new tag would otherwise wait for a profile save of its creator
// that waits for that tag's insert (a deadlock seen under mixed load). PostgreSQL: the embedded
// database has one connection, so nothing there runs beside the open transaction.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Tx } from '../../src/db/index.ts'
import { profileRepo } from '../../src/modules/account/repo.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { heldOpen } from '../helpers/held-transaction.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

/** Runs `then` while another transaction holds the account's profile lock. */
async function whileLocked<T>(userId: string, then: () => Promise<T>): Promise<T> {
  const holder = await heldOpen(t.database.db, async (tx) => {
    expect(await profileRepo.lockUser(tx, userId)).toBeDefined()
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

describe.runIf(process.env.TEST_DB === 'postgres')('the profile lock on an account row', () => {
  it('lets another transaction insert a row that references the account', async () => {
    const u = await createUser(t)
    const id = newId()
    await whileLocked(u.id, () =>
      waitingAtMostASecond((tx) => tx.insertInto('sessions').values({ id, userId: u.id }).execute()),
    )
    const row = await t.database.db
      .selectFrom('sessions')
      .select('userId')
      .where('id', '=', id)
      .executeTakeFirst()
    expect(row?.userId).toBe(u.id)
  })

  it('still makes a second edit of the same account wait', async () => {
    const u = await createUser(t)
    const second = whileLocked(u.id, () => waitingAtMostASecond((tx) => profileRepo.lockUser(tx, u.id)))
    await expect(second).rejects.toMatchObject({ code: '55P03' })
  })
})
