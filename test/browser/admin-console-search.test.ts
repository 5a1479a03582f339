// The console's global search and detail pages in headless Chromium, over the real service and
// dev chain (its coins file names an explorer): an operator finds a customer by email, opens the
// user page (balances, deposits, withdrawals), follows the withdrawal to its transfer and its
// transaction on the explorer, finds the withdrawal again by its transaction hash and the deposit
// by its hash, and goes from the deposit back to its owner.
// With SCREENSHOTS=1 (`npm run screenshots`) it also writes docs/img/admin-search.png and the pages'.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { adminEnv, createAdmin, runId, type TestAdmin } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { walletAddress } from '../helpers/money.ts'
import { AVAX, freshAddress, fundUser, settleAll, withdrawAvax } from '../withdrawals/helpers.ts'

const SHOTS = process.env.SCREENSHOTS === '1'
const IMG = new URL('../../docs/img/', import.meta.url)
const EXPLORER = 'https://explorer.example'

let t: TestApp
let baseUrl: string
let admin: TestAdmin
let customer: TestUser
let browser: ConsolePage
let dir: string
const to = freshAddress()
let withdrawal: { withdrawalId: string; transferId: string; txHash: string }
let depositHash: string

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  const run = runId()
  dir = mkdtempSync(join(tmpdir(), 'wp-coins-'))
  const coins = builtinCoinsConfig()
  const file = join(dir, 'coins.json')
  writeFileSync(
    file,
    JSON.stringify({ ...coins, chain: { ...coins.chain, blockExplorerUrls: [`${EXPLORER}/`] } }),
  )
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, COINS_FILE: file, ...adminEnv(run) } })
  admin = await createAdmin(t, run, 0, false)
  customer = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  await fundUser(t, 6, customer, 'avax', 2n * AVAX)
  const ids = await withdrawAvax(t, customer, 0.5, to)
  await settleAll(t)
  const db = t.database.db
  const sent = await db
    .selectFrom('outgoingTransfers')
    .select('txHash')
    .where('id', '=', ids.transferId)
    .executeTakeFirstOrThrow()
  withdrawal = { ...ids, txHash: sent.txHash! }
  const dep = await db
    .selectFrom('chainEvents')
    .select('txHash')
    .where('address', '=', (await walletAddress(t, customer)).toLowerCase())
    .where('amount', '=', String(2n * AVAX))
    .executeTakeFirstOrThrow()
  depositHash = dep.txHash
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function shot(name: string) {
  if (!SHOTS) return
  const { page } = browser
  await page.locator('#main[aria-busy="false"]').waitFor()
  mkdirSync(IMG, { recursive: true })
  await page.screenshot({ path: new URL(`admin-${name}.png`, IMG).pathname, fullPage: true })
}

it('searches by email and by transaction hash and follows the links between the detail pages', async () => {
  const { page, problems } = browser
  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))

  // g s: the search; by email, in another case
  await page.keyboard.press('g')
  await page.keyboard.press('s')
  await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor()
  await page.getByLabel('Search', { exact: true }).fill(customer.email.toUpperCase())
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  const userHit = page.getByRole('link', { name: customer.email })
  await userHit.waitFor()
  await expect(page.locator('ul.hits').textContent()).resolves.toContain('matched by email')
  await shot('search')

  // the user page
  await userHit.click()
  await page.getByRole('heading', { name: `User ${customer.email}`, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  const deposits = page.getByRole('region', { name: 'Deposits' })
  await expect(deposits.textContent()).resolves.toMatch(/2 AVAX.*credited/)
  const withdrawals = page.getByRole('region', { name: 'Withdrawals' })
  await expect(withdrawals.textContent()).resolves.toMatch(/0\.5 AVAX.*completed/)
  expect(
    await page.getByRole('region', { name: 'Live sessions' }).locator('tbody tr').count(),
  ).toBeGreaterThan(0)
  await shot('user')

  // its withdrawal: the user, the transfer and the transaction on the explorer
  await withdrawals.locator(`a[href="#/withdrawal/${withdrawal.withdrawalId}"]`).click()
  await page.getByRole('heading', { name: `Withdrawal ${withdrawal.withdrawalId}`, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  await expect(page.locator('[data-explorer]').first().getAttribute('href')).resolves.toBe(
    `${EXPLORER}/tx/${withdrawal.txHash}`,
  )
  await expect(page.locator('a[data-link="user"]').textContent()).resolves.toBe(customer.email)
  await shot('withdrawal')
  await page.locator(`a[href="#/transfer/${withdrawal.transferId}"]`).click()
  await page.getByRole('heading', { name: `Transfer ${withdrawal.transferId}`, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  const txs = page.getByRole('region', { name: /^Transactions/ })
  await expect(txs.textContent()).resolves.toContain('mined')
  await expect(txs.locator('[data-explorer]').getAttribute('href')).resolves.toBe(
    `${EXPLORER}/tx/${withdrawal.txHash}`,
  )
  // the transfer names what it was for: back to the withdrawal
  await page.locator(`a[href="#/withdrawal/${withdrawal.withdrawalId}"]`).first().waitFor()
  await shot('transfer')

  // by the withdrawal's transaction hash: its transfer and the withdrawal
  await page.goto(`${baseUrl}/admin#/search?q=${withdrawal.txHash}`)
  await page.locator('ul.hits li').nth(1).waitFor()
  await expect(page.locator('ul.hits li').allTextContents()).resolves.toEqual([
    expect.stringMatching(/^Transfer.*withdrawal 0\.5 AVAX/),
    expect.stringMatching(/^Withdrawal.*matched by transaction hash/),
  ])
  await page.locator(`ul.hits a[href="#/withdrawal/${withdrawal.withdrawalId}"]`).click()
  await page.getByRole('heading', { name: `Withdrawal ${withdrawal.withdrawalId}`, level: 1 }).waitFor()

  // by the deposit's hash: the deposit and its owner; the deposit's page links back to the user
  await page.keyboard.press('g')
  await page.keyboard.press('s')
  await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor()
  await page.getByLabel('Search', { exact: true }).fill(depositHash)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await page.locator(`ul.hits a[href="#/deposit/${depositHash}"]`).click()
  await page.getByRole('heading', { name: 'Deposits', level: 1 }).waitFor()
  const row = page.locator('#table-deposits tbody tr')
  await expect(row.textContent()).resolves.toMatch(/credited/)
  await row.getByRole('link', { name: customer.email }).click()
  await page.getByRole('heading', { name: `User ${customer.email}`, level: 1 }).waitFor()

  expect(problems).toEqual([])
})
