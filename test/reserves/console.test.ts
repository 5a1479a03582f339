// The console's Proof of reserves section in headless Chromium: an operator takes a snapshot from
// the page and sees one row per coin with its liabilities, reserves and ratio.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { lastCode, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let admin: TestUser
let baseUrl: string
let browser: ConsolePage
let page: Page
let problems: string[]
const run = runId()

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { ...adminEnv(run), PUBLIC_URL: baseUrl } })
  admin = await createAdmin(t, run, 0, false)
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
  page = browser.page
  problems = browser.problems
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const settled = () => page.locator('#main[aria-busy="false"]').waitFor()

it('takes a snapshot from the console and lists it per coin', async () => {
  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))

  await page.keyboard.press('g')
  await page.keyboard.press('p')
  await page.getByRole('heading', { name: 'Proof of reserves', level: 1 }).waitFor()
  await settled()
  await page.getByRole('button', { name: 'Take a snapshot now' }).click()
  const dialog = page.getByRole('dialog', { name: 'Take a snapshot now' })
  await dialog.getByLabel('Reason (kept in the audit log)').fill('Console check')
  await dialog.getByRole('button', { name: 'Take a snapshot now' }).click()
  await page.getByRole('status').filter({ hasText: 'Snapshot taken' }).waitFor()
  await settled()
  await page.getByRole('row', { name: /AVAX/ }).first().waitFor()
  await expect(page.getByRole('row', { name: /USDC/ }).count()).resolves.toBe(1)
  expect(problems).toEqual([])
})
