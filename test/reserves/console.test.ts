// The console's Proof of reserves section in headless Chromium: an operator takes a snapshot from
// the page and sees one row per coin with its liabilities, reserves and ratio.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { freePort } from '../helpers/browser.ts'
import { lastCode, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let admin: TestUser
let baseUrl: string
let context: BrowserContext
let page: Page
let profile: string
const problems: string[] = []
const run = runId()

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { ...adminEnv(run), PUBLIC_URL: baseUrl } })
  admin = await createAdmin(t, run, 0, false)
  await t.app.listen({ port, host: '127.0.0.1' })
  profile = mkdtempSync(join(tmpdir(), 'wp-chromium-'))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1366, height: 860 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  page = await context.newPage()
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text())
  })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
}, 300_000)

afterAll(async () => {
  await context?.close()
  if (profile) rmSync(profile, { recursive: true, force: true })
  await t?.close()
})

const settled = () => page.locator('#main[aria-busy="false"]').waitFor()

it('takes a snapshot from the console and lists it per coin', async () => {
  await page.goto(`${baseUrl}/admin`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await page.keyboard.type(admin.email)
  await page.keyboard.press('Tab')
  await page.keyboard.type(admin.password)
  await page.keyboard.press('Enter')
  await page.getByRole('button', { name: 'Mail me a code' }).click()
  await page.getByText(`A code was mailed to ${admin.email}`).waitFor()
  await page.getByLabel('Mailed code').fill(await lastCode(t, admin.email))
  await page.getByRole('button', { name: 'Unlock admin pages' }).click()
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()

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
