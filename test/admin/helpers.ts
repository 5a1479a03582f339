// Shared steps of the admin tests: an app whose ADMIN_EMAILS names the admins the tests create, an
// admin with an elevated session (the emailed code from the real outbox), and envelope checks.
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser, uniqueEmail } from '../helpers/factories.ts'

export { expectError } from '../helpers/errors.ts'

export const ADMIN_DOMAIN = 'ops.example.com'
/** ADMIN_EMAILS for a test app: the admins the tests make with `createAdmin(t, n)`. */
export const adminEnv = (run: string) => ({
  ADMIN_EMAILS: Array.from({ length: 4 }, (_, i) => adminEmail(run, i)).join(','),
})
export const adminEmail = (run: string, n: number) => `admin${n}.${run}@${ADMIN_DOMAIN}`

export async function createAdmin(t: TestApp, run: string, n = 0, elevate = true): Promise<TestUser> {
  const admin = await createUser(t, { email: adminEmail(run, n) })
  if (elevate) await elevateSession(t, admin)
  return admin
}

/** Steps the admin's session up with a mailed code. */
export async function elevateSession(t: TestApp, admin: TestUser) {
  const sent = await t.req({ method: 'POST', url: '/v1/admin/session/code', token: admin.token })
  expect(sent.statusCode, sent.body).toBe(200)
  const code = await lastCode(t, admin.email)
  const res = await t.req({ method: 'POST', url: '/v1/admin/session', token: admin.token, payload: { code } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().data.elevated).toBe(true)
}

export function expectOk(res: { statusCode: number; body: string; json(): any }, status = 200) {
  expect(res.statusCode, res.body).toBe(status)
  const body = res.json()
  expect(body.status).toBe('success')
  return body.data
}

export function auditRows(t: TestApp, action?: string) {
  let q = t.database.db.selectFrom('adminAudit').selectAll().orderBy('createdAt').orderBy('id')
  if (action) q = q.where('action', '=', action)
  return q.execute()
}

export const runId = () => Math.random().toString(36).slice(2, 8)
export { uniqueEmail }
