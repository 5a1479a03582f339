// The console as support and finance use it, in headless Chromium: cancelling a customer's
// withdrawal (the dialog names the amount, the user and the address, its buttons say what they do,
// and the operator's reason stays in the audit log while the customer reads only the message typed
// for them), then the audit log by day with admins' emails, exported as CSV, and a sign-out that
// revokes the session.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser } from '../withdrawals/helpers.ts'

let t: TestApp
let admin: TestUser
let baseUrl: string
let browser: ConsolePage

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  const run = runId()
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, ...adminEnv(run) } })
  admin = await createAdmin(t, run, 0, false)
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

it('cancels a withdrawal with a note for the audit log and a message for the customer', async () => {
  const { page, problems } = browser
  const user = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  await fundUser(t, 3, user, 'avax', 1n * AVAX)
  const to = freshAddress()
  const devnet = t.app.services.chain.devnet!
  devnet.setDown(true)
  let id: string
  try {
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.25, coin: 'avax', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    id = res.json().data.withdrawalId
    await t.drain()
  } finally {
    devnet.setDown(false)
  }

  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))
  await page.keyboard.press('g')
  await page.keyboard.press('w')
  await page.getByRole('heading', { name: 'Withdrawals', level: 1 }).waitFor()
  const label = `withdrawal ${id.slice(0, 8)}…`
  await page.getByRole('button', { name: `Cancel ${label}` }).click()
  const dialog = page.getByRole('dialog', { name: `Cancel ${label}` })
  await expect(dialog.textContent()).resolves.toMatch(new RegExp(`0\\.25 AVAX.*${user.email}.*${to}`, 'i'))
  await expect(dialog.getByRole('button', { name: 'Close' }).count()).resolves.toBe(1)
  await expect(dialog.getByRole('button', { name: 'Cancel the withdrawal' }).count()).resolves.toBe(1)
  await dialog.getByLabel('Message to the customer (optional)').fill('Cancelled at your request')
  await dialog.getByLabel('Reason (kept in the audit log)').fill('Support ticket 4411: asked to cancel')
  await dialog.getByRole('button', { name: 'Cancel the withdrawal' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `Cancel ${label}: Cancelled` })
    .waitFor()
  await t.drain()

  const mine = await t.req({ method: 'GET', url: '/v1/withdrawals/', token: user.token })
  expect(mine.body).toContain('cancelled: Cancelled at your request')
  expect(mine.body).not.toContain('4411')
  const audit = await t.database.db
    .selectFrom('adminAudit')
    .select(['reason', 'details'])
    .where('action', '=', 'withdrawal.cancel')
    .where('targetId', '=', id)
    .executeTakeFirstOrThrow()
  expect(audit.reason).toBe('Support ticket 4411: asked to cancel')
  expect(audit.details).toMatchObject({ customerMessage: 'Cancelled at your request' })
  expect(problems).toEqual([])
})

it('filters the audit log by day, shows who acted by email, and exports what it shows as CSV', async () => {
  const { page, problems } = browser
  await page.keyboard.press('g')
  await page.keyboard.press('a')
  await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
  const today = t.clock.now().toISOString().slice(0, 10)
  await page.getByLabel('Action').fill('withdrawal.cancel')
  await page.getByLabel('From (UTC day)').fill(today)
  await page.getByLabel('To (UTC day, included)').fill(today)
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.locator('#main[aria-busy="false"]').waitFor()
  const rows = page.getByRole('row').filter({ hasText: 'withdrawal.cancel' })
  await expect(rows.count()).resolves.toBe(1)
  await expect(rows.first().textContent()).resolves.toContain(admin.email)

  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ])
  expect(file.suggestedFilename()).toMatch(/^audit-\d{4}-\d{2}-\d{2}\.csv$/)
  const csv = readFileSync((await file.path())!, 'utf8')
    .trim()
    .split('\r\n')
  expect(csv).toHaveLength(2)
  expect(csv[1]).toContain('withdrawal.cancel')
  expect(csv[1]).toContain(admin.email)
  await page.getByRole('status').filter({ hasText: '1 record' }).waitFor()

  // A day without actions shows none.
  await page.getByLabel('From (UTC day)').fill('2020-01-01')
  await page.getByLabel('To (UTC day, included)').fill('2020-01-01')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.locator('#main[aria-busy="false"]').waitFor()
  await expect(page.getByRole('row').filter({ hasText: 'withdrawal.cancel' }).count()).resolves.toBe(0)
  expect(problems).toEqual([])
})

it('signs out for good: the token the console held is refused afterwards', async () => {
  const { page, problems } = browser
  const token = await page.evaluate<string | null>("sessionStorage.getItem('workpay.admin.token')")
  expect(token).toBeTruthy()
  expect((await t.req({ method: 'GET', url: '/v1/account', token: token! })).statusCode).toBe(200)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByText('Signed out.').waitFor()
  expect(await page.evaluate<string | null>("sessionStorage.getItem('workpay.admin.token')")).toBeNull()
  expect((await t.req({ method: 'GET', url: '/v1/account', token: token! })).statusCode).toBe(401)
  expect(problems).toEqual([])
})
