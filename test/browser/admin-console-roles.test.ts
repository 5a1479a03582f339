// The console by role, in headless Chromium: a support operator and a finance operator each sign in
// with their authenticator app and see their role, and only the actions it may take: support may
// suspend an account but not run a reconciliation or set roles; finance may run a reconciliation but
// not suspend or set roles. Ids are shown whole, with a button that copies them.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, expectOk, runId, type TestAdmin, turnOnTotp } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let baseUrl: string
let customer: TestUser
const staff: Record<'finance' | 'support', TestAdmin> = {} as never

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  const run = runId()
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, ...adminEnv(run) } })
  const admin = await createAdmin(t, run, 0)
  customer = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  for (const role of ['finance', 'support'] as const) {
    const u: TestAdmin = await createUser(t)
    expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${u.id}/role`,
        token: admin.token,
        payload: { role, reason: `joined ${role}` },
      }),
    )
    await turnOnTotp(t, u)
    staff[role] = u
  }
  await t.app.listen({ port, host: '127.0.0.1' })
}, 300_000)

afterAll(async () => {
  await t?.close()
})

async function asRole(role: 'finance' | 'support', check: (c: ConsolePage) => Promise<void>) {
  const c = await openConsolePage()
  try {
    const u = staff[role]
    await signInToConsole(c.page, baseUrl, u, () => lastCode(t, u.email))
    await c.page.locator('#who').getByText(`(${role})`).waitFor()
    await check(c)
    expect(c.problems).toEqual([])
  } finally {
    await c.close()
  }
}

async function usersPage(c: ConsolePage) {
  await c.page.goto(`${baseUrl}/admin#/users?q=${encodeURIComponent(customer.email)}`)
  await c.page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
  await c.page.locator('#main[aria-busy="false"]').waitFor()
  await c.page.getByRole('cell', { name: customer.email, exact: true }).first().waitFor()
}

it('shows support the customer actions and none of money or configuration', async () => {
  await asRole('support', async (c) => {
    const { page } = c
    await page.locator('#main[aria-busy="false"]').waitFor()
    await expect(page.getByRole('button', { name: 'Run reconciliation now' }).count()).resolves.toBe(0)
    await usersPage(c)
    const row = page.locator('tr', { hasText: customer.email })
    await expect(row.getByRole('button', { name: /^Suspend/ }).count()).resolves.toBe(1)
    await expect(row.getByRole('button', { name: /^Set role/ }).count()).resolves.toBe(0)
    // The whole id is shown, and copied by its button.
    await row.getByText(customer.id, { exact: true }).waitFor()
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl })
    await row.getByRole('button', { name: `Copy ${customer.id}` }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Copied ${customer.id}` })
      .waitFor()
    await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(customer.id)
  })
})

it('shows finance the money actions and none of customers or configuration', async () => {
  await asRole('finance', async (c) => {
    const { page } = c
    await page.locator('#main[aria-busy="false"]').waitFor()
    await page.getByRole('button', { name: 'Run reconciliation now' }).waitFor()
    await usersPage(c)
    const row = page.locator('tr', { hasText: customer.email })
    await expect(row.getByRole('button', { name: /^Suspend/ }).count()).resolves.toBe(0)
    await expect(row.getByRole('button', { name: /^Set role/ }).count()).resolves.toBe(0)
  })
})
