// Test data: users created through the real API, codes read from the real outbox.
import { randomBytes } from 'node:crypto'
import type { TestApp } from './app.ts'

export const PASSWORD = 'Str0ng!pass'

export function uniqueEmail(prefix = 'user') {
  return `${prefix}.${randomBytes(5).toString('hex')}@example.com`
}

/** The latest 6-digit code mailed to `email` (after running the mail jobs). */
export async function lastCode(t: TestApp, email: string): Promise<string> {
  await t.drain()
  const mail = await t.database.db
    .selectFrom('mails')
    .select(['text', 'html'])
    .where('toAddress', '=', email.toLowerCase())
    .orderBy('createdAt', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst()
  const code = mail?.text.match(/\b(\d{6})\b/)?.[1]
  if (!code) throw new Error(`no code mailed to ${email}`)
  return code
}

export async function mailCount(t: TestApp, email: string): Promise<number> {
  await t.drain()
  const rows = await t.database.db
    .selectFrom('mails')
    .select('id')
    .where('toAddress', '=', email.toLowerCase())
    .execute()
  return rows.length
}

export interface TestUser {
  id: string
  email: string
  password: string
  token: string
}

/** Registers, verifies and returns a logged-in user. */
export async function createUser(
  t: TestApp,
  opts: { email?: string; password?: string; firstName?: string; lastName?: string } = {},
): Promise<TestUser> {
  const email = opts.email ?? uniqueEmail()
  const password = opts.password ?? PASSWORD
  const reg = await t.req({
    method: 'POST',
    url: '/v1/auth/create-account',
    payload: {
      firstName: opts.firstName ?? 'Test',
      lastName: opts.lastName ?? 'User',
      email,
      password,
      confirmPassword: password,
    },
  })
  if (reg.statusCode !== 202) throw new Error(`register failed: ${reg.body}`)
  const code = await lastCode(t, email)
  const ver = await t.req({
    method: 'POST',
    url: '/v1/auth/account/verify',
    payload: { token: code, tempToken: reg.json().data.tempToken.token },
  })
  if (ver.statusCode !== 200) throw new Error(`verify failed: ${ver.body}`)
  const token = ver.json().data.token as string
  const me = await t.req({ method: 'GET', url: '/v1/account', token })
  return { id: me.json().data._id, email, password, token }
}
