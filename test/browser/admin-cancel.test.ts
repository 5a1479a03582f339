// Cancelling a customer's withdrawal from the console, in headless Chromium: the dialog names the
// amount, the user and the address, its buttons say what they do (Close / Cancel the withdrawal),
// and the operator's reason stays in the audit log while the customer reads only the message
// typed for them.
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
