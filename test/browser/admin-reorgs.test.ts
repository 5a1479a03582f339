// The console's Chain reorganisations section in headless Chromium: after a deep reorganisation
// made on the dev chain (evm_snapshot/evm_revert), the operator signs in, finds the vanished
// deposit with its held value, and reverses it with a reason; the dashboard shows the reorg losses.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode } from '../helpers/factories.ts'
import { USDC, walletAddress } from '../helpers/money.ts'
import { deepReorg, deposit, openReorgWorld, type ReorgWorld } from '../settlement/reorg-support.ts'

let w: ReorgWorld
let baseUrl: string
let browser: ConsolePage
let page: Page
let problems: string[]

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  w = await openReorgWorld(9, { env: { PUBLIC_URL: baseUrl }, elevate: false })
  await w.t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
  page = browser.page
  problems = browser.problems
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await w?.t.close()
})

const settled = () => page.locator('#main[aria-busy="false"]').waitFor()

it('lists a deposit a deep reorganisation took back, and reverses it from the console', async () => {
  const user = await createUser(w.t)
  const address = await walletAddress(w.t, user)
  const sent = await deepReorg(w, () => deposit(w, address, 'usdc', 5n * USDC))

  await signInToConsole(page, baseUrl, w.admin, () => lastCode(w.t, w.admin.email))

  await page.keyboard.press('g')
  await page.keyboard.press('r')
  await page.getByRole('heading', { name: 'Chain reorganisations', level: 1 }).waitFor()
  await settled()
  const label = `deposit ${sent.hash.slice(0, 10)}…`
  const row = page.getByRole('row', { name: new RegExp(sent.hash.slice(2, 10)) })
  await expect(row.textContent()).resolves.toMatch(/USDC.*5 USDC.*5 USDC.*open/)

  await page.getByRole('button', { name: `Reverse ${label}` }).click()
  const dialog = page.getByRole('dialog', { name: `Reverse ${label}` })
  await dialog.getByLabel('Reason (kept in the audit log)').fill('Not on the chain any more')
  await dialog.getByRole('button', { name: 'Reverse' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `Reverse ${label}: Deposit reversed` })
    .waitFor()
  await settled()
  await expect(page.getByRole('button', { name: `Reverse ${label}` }).count()).resolves.toBe(0)
  expect(await w.t.app.services.ledger.balance(w.t.database.db, 'user', user.id, 'usdc')).toBe(0n)

  // The dashboard's custody table has the reorg losses column.
  await page.keyboard.press('g')
  await page.keyboard.press('d')
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
  await settled()
  await page.getByRole('columnheader', { name: 'Reorg losses' }).waitFor()
  expect(problems).toEqual([])
})
