// The last admin keeps the role (409 LAST_ADMIN) and stays unsuspended, whoever asks. An admin
// can never take the role from themselves (OWN_ACCOUNT_REFUSED), so the last admin is reached
// only in a race: two admins taking the role from each other at once, the second request having
// passed its access check before the first one committed. The guard runs under the admins' row
// locks; this file drives it both ways: the late request's step as the service runs it, and the
// race itself over HTTP, after which one admin always remains.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Tx } from '../../src/db/index.ts'
import { AppError } from '../../src/http/errors.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { elevateSession, expectError, expectOk, type TestAdmin, turnOnTotp } from './helpers.ts'

let t: TestApp
const reason = 'Ticket 5121: operator left the company'

beforeAll(async () => {
  // No ADMIN_EMAILS: every admin here holds the role in the database only.
  t = await createTestApp()
})
afterAll(async () => {
  await t?.close()
})

const db = () => t.database.db
const roleOf = async (id: string) =>
  (await db().selectFrom('users').select('role').where('id', '=', id).executeTakeFirstOrThrow()).role

async function dbAdmin(): Promise<TestAdmin> {
  const u: TestAdmin = await createUser(t)
  await db().updateTable('users').set({ role: 'admin' }).where('id', '=', u.id).execute()
  await turnOnTotp(t, u)
  await elevateSession(t, u)
  return u
}

const revoke = (actor: TestAdmin, target: TestAdmin) =>
  t.req({
    method: 'POST',
    url: `/v1/admin/users/${target.id}/admin/revoke`,
    token: actor.token,
    payload: { reason },
  })

/** The service step of a request whose actor lost the role after its access check. */
async function lateStep(run: (tx: Tx) => Promise<unknown>) {
  try {
    await db()
      .transaction()
      .execute((tx) => run(tx))
  } catch (err) {
    return err
  }
  return undefined
}

describe('the last admin', () => {
  it('keeps the role and cannot be given another role or suspended, even by a request that passed its access check', async () => {
    const b = await dbAdmin()
    const c = await dbAdmin()
    // c takes the role from b: c is the last admin.
    expectOk(await revoke(c, b))
    expect(await roleOf(b.id)).toBe('user')
    // b's own requests are refused at the door now...
    expectError(await revoke(b, c), 403, 'FORBIDDEN')
    // ...and a request of b that was let in before is refused by the guard under the lock.
    const moderation = t.app.services.moderation
    for (const step of [
      (tx: Tx) => moderation.revokeAdmin(tx, b.id, c.id),
      (tx: Tx) => moderation.setStaffRole(tx, b.id, c.id, 'support'),
      (tx: Tx) => moderation.setStaffRole(tx, b.id, c.id, 'user'),
    ]) {
      const err = await lateStep(step)
      expect(err).toBeInstanceOf(AppError)
      expect(err).toMatchObject({ statusCode: 409, code: 'LAST_ADMIN' })
    }
    // Suspending an operator needs an admin's rights, which the service checks under the lock too.
    expect(await lateStep((tx) => moderation.suspend(tx, b.id, c.id, reason))).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
    })
    expect(await roleOf(c.id)).toBe('admin')
    const row = await db()
      .selectFrom('users')
      .select('suspendedAt')
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow()
    expect(row.suspendedAt).toBeNull()
    // Put b back for the next case.
    await db().updateTable('users').set({ role: 'admin' }).where('id', '=', b.id).execute()
  })

  it('remains when two admins take the role from each other at once', async () => {
    const [x, y] = [await dbAdmin(), await dbAdmin()]
    // Every other admin leaves first, so x and y are the only two.
    await db()
      .updateTable('users')
      .set({ role: 'user' })
      .where('role', '=', 'admin')
      .where('id', 'not in', [x.id, y.id])
      .execute()
    const [one, two] = await Promise.all([revoke(x, y), revoke(y, x)])
    const outcomes = [one, two].map((res) =>
      res.statusCode === 200 ? 'ok' : `${res.statusCode} ${res.json().data?.code}`,
    )
    // Exactly one wins; the other is refused at the door (403) or by the guard (409 LAST_ADMIN).
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1)
    expect(['403 FORBIDDEN', '409 LAST_ADMIN']).toContain(outcomes.find((o) => o !== 'ok'))
    const admins = await db().selectFrom('users').select('id').where('role', '=', 'admin').execute()
    expect(admins).toHaveLength(1)
  })
})
