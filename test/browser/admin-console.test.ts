// The operator console as an operator uses it, in headless Chromium: signing in at /admin with the
// admin's account, turning on the authenticator app the admin pages need and unlocking them with its
// code, the dashboard (custody, ledger and chain, queue,
// plots), moving around with the keyboard, and a withdrawal that failed for real on the dev chain
// (the chain was down for every attempt) retried from the console and landing on chain.
// With SCREENSHOTS=1 (`npm run screenshots`) it also writes docs/img/admin-*.png.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deployToken } from '../admin/coin-add-support.ts'
import { adminEmail, adminEnv, codesOf, runId, type TestAdmin } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { freePort } from '../helpers/browser.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll, USDC } from '../withdrawals/helpers.ts'

const SHOTS = process.env.SCREENSHOTS === '1'
const IMG = new URL('../../docs/img/', import.meta.url)
const run = runId()
const DAY = 86_400_000

let t: TestApp
let admin: TestAdmin
let users: TestUser[]
let baseUrl: string
let context: BrowserContext
let page: Page
let profile: string
const cspViolations: string[] = []

async function withdraw(user: TestUser, amount: number, coin = 'avax', address: string = freshAddress()) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin, address, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  return { id: res.json().data.withdrawalId as string, address }
}

/** A week of deposits and withdrawals, one day at a time, so the plots have something to show. */
async function history() {
  const plan = [
    [3, 1],
    [5, 2],
    [2, 0],
    [6, 3],
    [4, 1],
    [7, 2],
  ]
  for (const [i, [inAvax, outAvax]] of plan.entries()) {
    const u = users[i % users.length]!
    await fundUser(t, 8 + (i % 4), u, 'avax', BigInt(inAvax!) * AVAX)
    if (i % 2 === 0) await fundUser(t, 8 + (i % 4), u, 'usdc', BigInt(100 * (i + 1)) * USDC)
    if (outAvax) await withdraw(u, outAvax!)
    await settleAll(t)
    t.clock.advance(DAY)
  }
}

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, ...adminEnv(run) } })
  admin = await createUser(t, { email: adminEmail(run, 0) })
  users = [
    await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' }),
    await createUser(t, { firstName: 'Alan', lastName: 'Turing' }),
    await createUser(t, { firstName: 'Grace', lastName: 'Hopper' }),
  ]
  await history()
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
    if (/Content Security Policy|Refused to/i.test(msg.text())) cspViolations.push(msg.text())
  })
  page.on('pageerror', (err) => cspViolations.push(`page error: ${err.message}`))
}, 300_000)

afterAll(async () => {
  await context?.close()
  if (profile) rmSync(profile, { recursive: true, force: true })
  await t?.close()
})

/** Waits until the page has drawn what it was loading (the main region is no longer busy). */
async function settled() {
  await page.locator('#main[aria-busy="false"]').waitFor()
}

async function shot(name: string) {
  if (!SHOTS) return
  await settled()
  await page.evaluate("document.getElementById('toast').textContent = ''")
  mkdirSync(IMG, { recursive: true })
  await page.screenshot({ path: new URL(`admin-${name}.png`, IMG).pathname, fullPage: true })
}

describe('the operator console at /admin', () => {
  it('signs in with the account, turns on an authenticator app, unlocks with its code and opens the dashboard', async () => {
    await page.goto(`${baseUrl}/admin`)
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    // The sign-in form takes the focus at once: typing works without the mouse.
    await page.keyboard.type(admin.email)
    await page.keyboard.press('Tab')
    await page.keyboard.type(admin.password)
    await page.keyboard.press('Enter')

    // No authenticator app yet: the console has one turned on first (a mailed code unlocks nothing).
    await page.getByRole('heading', { name: 'Authenticator app required' }).waitFor()
    await expect(page.getByRole('button', { name: 'Mail me a code' }).count()).resolves.toBe(0)
    await page.getByRole('button', { name: 'Turn on an authenticator app' }).click()
    await page.getByRole('heading', { name: 'Add the key to your app' }).waitFor()
    const secret = (await page.locator('[data-totp-secret]').textContent()) ?? ''
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    await expect(page.getByRole('link', { name: 'otpauth link' }).getAttribute('href')).resolves.toContain(
      `secret=${secret}`,
    )
    admin.nextCode = codesOf(t, secret)
    await page.getByLabel('Code from the app').fill(admin.nextCode())
    await page.getByRole('button', { name: 'Turn on', exact: true }).click()

    await page.getByRole('heading', { name: 'Admin second factor' }).waitFor()
    await page.getByLabel('Authenticator code').fill(admin.nextCode())
    await page.getByRole('button', { name: 'Unlock admin pages' }).click()

    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
    const token = await page.evaluate("sessionStorage.getItem('workpay.admin.token')")
    expect(token).toMatch(/^ey/)
    expect(await page.evaluate('localStorage.length')).toBe(0)

    // Custody per coin, as the ledger has it.
    await settled()
    const held = page.getByRole('region', { name: 'Held in custody' })
    await expect(held.getByRole('row', { name: /AVAX/ }).count()).resolves.toBe(1)
    await expect(held.getByRole('row', { name: /USDC/ }).count()).resolves.toBe(1)
    expect(await held.locator('#gas-wallet').textContent()).toMatch(/Gas wallet 0x.*AVAX/)
    await expect(held.getByRole('columnheader').allTextContents()).resolves.toEqual([
      'Coin',
      'Users',
      'Escrow',
      'Withdrawing',
      'Platform fees',
      'Treasury',
      'Total',
      'Reorg losses',
    ])
    await held.getByText('Total = Users + Escrow + Withdrawing + Platform fees + Treasury').waitFor()
    // Failed transfers have a card of their own.
    await page.getByRole('region', { name: 'Failed transfers' }).waitFor()
    // Ledger and chain, with the run-now action.
    const recon = page.getByRole('region', { name: 'Ledger and chain' })
    await expect(recon.getByRole('button', { name: 'Run reconciliation now' }).count()).resolves.toBe(1)
    // Both plots are drawn, each with its numbers.
    await page.locator('svg.plot polyline.s-deposit').waitFor()
    expect(await page.locator('svg.plot circle.s-deposit').count()).toBe(14)
    expect(await page.locator('svg.plot rect.bar, svg.plot text.tick').count()).toBeGreaterThan(10)
    const numbers = page.getByRole('region', { name: 'Money in and out' }).locator('details table')
    expect(await numbers.locator('tbody tr').count()).toBe(14)
    expect(cspViolations).toEqual([])
  })

  it('runs a reconciliation from the dashboard with a reason, and the audit log shows it', async () => {
    // Two withdrawals waiting to be sent, a few minutes apart: the age plot shows them.
    await withdraw(users[0]!, 0.5)
    t.clock.advance(6 * 60_000)
    await withdraw(users[1]!, 0.25)
    t.clock.advance(90_000)
    await page.keyboard.press('r')
    await settled()
    await page.locator('svg.plot rect.bar.s-queued').first().waitFor()
    expect(await page.locator('svg.plot rect.bar.s-queued').count()).toBe(2)
    await page.getByRole('button', { name: 'Run reconciliation now' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Reason (kept in the audit log)').fill('Daily check from the console')
    await dialog.getByRole('button', { name: 'Run now' }).click()
    await page.getByRole('status').filter({ hasText: 'Reconciliation ran (ok)' }).waitFor()
    await settled()
    await expect(
      page.getByRole('region', { name: 'Ledger and chain' }).getByText('ok', { exact: true }).count(),
    ).resolves.toBeGreaterThan(0)
    await shot('dashboard')
    await settleAll(t)

    await page.keyboard.press('g')
    await page.keyboard.press('a')
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
    await settled()
    const row = page.getByRole('row', { name: /reconciliation\.run/ })
    await expect(row.getByText('Daily check from the console').count()).resolves.toBe(1)
  })

  it('resumes a halted coin from the dashboard, with a reason', async () => {
    // A halt as an operator's API call writes it (the console's own halt button is not needed).
    await t.app.services.settlement.halts.halt(t.database.db, {
      coin: 'usdc',
      reason: 'manual',
      details: {},
      by: admin.id,
    })
    await page.keyboard.press('g')
    await page.keyboard.press('d')
    await settled()
    const recon = page.getByRole('region', { name: 'Ledger and chain' })
    const halted = recon.getByRole('listitem').filter({ hasText: 'USDC' })
    await expect(halted.textContent()).resolves.toMatch(/USDC manual since/)
    await halted.getByRole('button', { name: 'Resume' }).click()
    const dialog = page.getByRole('dialog', { name: 'Resume USDC' })
    // A reason is required: the dialog stays open without one.
    await dialog.getByRole('button', { name: 'Resume' }).click()
    await expect(dialog.isVisible()).resolves.toBe(true)
    await dialog.getByLabel('Reason (kept in the audit log)').fill('Contract incident closed')
    await dialog.getByRole('button', { name: 'Resume' }).click()
    await page.getByRole('status').filter({ hasText: 'Resume USDC: Coin resumed' }).waitFor()
    await settled()
    expect(await recon.getByRole('listitem').count()).toBe(0)
    expect(await t.app.services.settlement.halts.isHalted('usdc')).toBe(false)
    const audit = await t.database.db
      .selectFrom('adminAudit')
      .select(['action', 'targetId', 'reason'])
      .where('action', '=', 'coin.resume')
      .execute()
    expect(audit).toEqual([{ action: 'coin.resume', targetId: 'usdc', reason: 'Contract incident closed' }])
  })

  it('retries a withdrawal that failed on the dev chain from the console, and it lands', async () => {
    const devnet = t.app.services.chain.devnet!
    const to = freshAddress()
    // The chain is down for the withdrawal's first attempt: a real failed attempt, retried later.
    devnet.setDown(true)
    let id: string
    try {
      id = (await withdraw(users[0]!, 0.2, 'avax', to)).id
      await t.drain()
    } finally {
      devnet.setDown(false)
    }
    const row = await t.database.db
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({ status: 'processing', retryCount: 1 })

    await page.keyboard.press('g')
    await page.keyboard.press('w')
    await page.getByRole('heading', { name: 'Withdrawals', level: 1 }).waitFor()
    await page.getByLabel('State').selectOption('failing')
    await page.getByRole('button', { name: 'Apply' }).click()
    await settled()
    expect(await page.getByRole('row').count()).toBe(2) // the header and the failing withdrawal
    const label = `withdrawal ${id.slice(0, 8)}…`
    await page.getByRole('button', { name: `Retry ${label}` }).click()
    const dialog = page.getByRole('dialog', { name: `Retry ${label}` })
    await dialog.getByLabel('Reason (kept in the audit log)').fill('Chain endpoint is back')
    await dialog.getByRole('button', { name: 'Retry' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: `Retry ${label}: Queued to run now` })
      .waitFor()
    await shot('withdrawals')

    // The retried run sends it at once (no backoff wait): it lands on chain.
    await t.drain()
    const after = await t.database.db
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(after.status).toBe('completed')
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 5n)
    const audit = await t.database.db
      .selectFrom('adminAudit')
      .select(['action', 'targetId', 'reason'])
      .where('action', '=', 'withdrawal.retry')
      .execute()
    expect(audit).toEqual([{ action: 'withdrawal.retry', targetId: id, reason: 'Chain endpoint is back' }])
    await page.getByLabel('State').selectOption('completed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await settled()
    await page.getByRole('row', { name: new RegExp(id.slice(0, 8)) }).waitFor()
  })

  it('moves around with the keyboard: shortcuts, a visible focus ring, the help dialog', async () => {
    await page.keyboard.press('g')
    await page.keyboard.press('u')
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
    expect(await page.evaluate('location.hash')).toBe('#/users')
    await page.keyboard.press('/')
    expect(await page.evaluate('document.activeElement.name')).toBe('q')
    await page.keyboard.type('Lovelace')
    await page.keyboard.press('Enter')
    await settled()
    expect(await page.evaluate('location.hash')).toBe('#/users?q=Lovelace')
    await page.getByRole('row', { name: /Ada Lovelace/ }).waitFor()
    expect(await page.locator('table.list tbody tr').count()).toBe(1)
    // The focus ring is drawn on whatever has the keyboard focus.
    await page.keyboard.press('Tab')
    const outline = await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')
    expect(outline).toBe('solid')
    await page.keyboard.press('Escape')
    await page.locator('h1').click()
    await page.keyboard.press('?')
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor()
    await page.keyboard.press('Escape')
    await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' }).isVisible()).resolves.toBe(false)

    // A `g` chord lasts 1.5 s between the two presses, as the browser timed them: the key events
    // carry their own times here, so the page's speed does not matter.
    const cdp = await context.newCDPSession(page)
    const keyAt = async (key: string, timestamp: number) => {
      for (const type of ['keyDown', 'keyUp'] as const)
        await cdp.send('Input.dispatchKeyEvent', {
          type,
          key,
          code: `Key${key.toUpperCase()}`,
          text: key,
          timestamp,
        })
    }
    const now = Date.now() / 1000
    await keyAt('g', now)
    await keyAt('u', now + 1.6) // too late: the chord has lapsed, and a lone `u` does nothing
    await keyAt('r', now + 1.7) // `r` alone reloads the page it is on
    await settled()
    expect(await page.evaluate('location.hash')).toBe('#/users?q=Lovelace')
    await keyAt('g', now + 2)
    await keyAt('a', now + 3.4)
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor()
    await cdp.detach()

    // Coins with their halt state; the platform fees per coin.
    await page.keyboard.press('g')
    await page.keyboard.press('c')
    await page.getByRole('heading', { name: 'Coins', level: 1 }).waitFor()
    await settled()
    for (const coin of ['avax', 'usdc']) {
      const row = page.locator(`tr[data-id="${coin}"]`)
      expect(await row.textContent()).toContain('running')
      await expect(row.getByRole('button', { name: `Halt ${coin.toUpperCase()}` }).count()).resolves.toBe(1)
    }
    await page.keyboard.press('g')
    await page.keyboard.press('f')
    await page.getByRole('heading', { name: 'Platform fees', level: 1 }).waitFor()
    await settled()
    expect(await page.locator('tr[data-id="avax"]').textContent()).toMatch(/AVAX.*AVAX/)
    // No cold address is configured here: nothing to sweep, and no sweep yet.
    expect(await page.locator('tr[data-id="avax"]').textContent()).toContain('not configured')
    await expect(page.getByRole('button', { name: /^Sweep / }).count()).resolves.toBe(0)
    await page.getByRole('heading', { name: 'Latest sweeps', level: 2 }).waitFor()
    expect(cspViolations).toEqual([])
  })

  it("adds a token already on the chain from the coins page's Add coin form", async () => {
    const owner = t.app.services.chain.devnet!.accounts[6]!
    const token = await deployToken(t, owner, { name: 'Dai Stablecoin', symbol: 'DAI', decimals: 18 })
    await page.keyboard.press('g')
    await page.keyboard.press('c')
    await page.getByRole('heading', { name: 'Coins', level: 1 }).waitFor()
    await settled()
    await page.getByRole('button', { name: 'Add coin' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add coin' })
    await dialog.getByLabel('Symbol').fill('DAI')
    await dialog.getByLabel('Name').fill('Dai Stablecoin')
    await dialog.getByLabel('Contract address').fill(token)
    // the configured chain is filled in
    await expect(dialog.getByLabel('Chain id').inputValue()).resolves.toBe('31337')
    await dialog.getByLabel('USD per whole coin').fill('1')
    await dialog.getByLabel('Active at once').selectOption('yes')
    // A wrong number of decimals is the API's answer, shown in the dialog.
    await dialog.getByLabel('Decimals').fill('6')
    await dialog.getByLabel('Reason (kept in the audit log)').fill('Listing DAI')
    await dialog.getByRole('button', { name: 'Add coin' }).click()
    await dialog
      .getByText('The contract says the token has 18 decimals, not 6 (TOKEN_DECIMALS_MISMATCH)')
      .waitFor()
    await dialog.getByLabel('Decimals').fill('')
    await dialog.getByRole('button', { name: 'Add coin' }).click()
    await page.getByRole('status').filter({ hasText: 'Add coin: Coin added' }).waitFor()
    await settled()
    const row = page.locator('tr[data-id="dai"]')
    await expect(row.textContent()).resolves.toMatch(
      /DAI.*Dai Stablecoin.*18.*active.*\$1 \(set\).*running.*added/,
    )
    await shot('coins')
    expect(await t.app.services.chain.coin('dai').contractAddress).toBe(token)
    const audit = await t.database.db
      .selectFrom('adminAudit')
      .select(['action', 'targetId', 'reason'])
      .where('action', '=', 'coin.add')
      .execute()
    expect(audit).toEqual([{ action: 'coin.add', targetId: 'dai', reason: 'Listing DAI' }])
    expect(cspViolations).toEqual([])
  })

  it('answers where a deposit is from its transaction hash', async () => {
    // The latest deposit credited to a customer, as the watcher recorded it.
    const { txHash } = await t.database.db
      .selectFrom('chainEvents')
      .select('txHash')
      .where('kind', '=', 'deposit')
      .where('ownerId', '=', users[0]!.id)
      .orderBy('blockNumber', 'desc')
      .executeTakeFirstOrThrow()
    await page.goto(`${baseUrl}/admin#/deposits?hash=${txHash}`)
    await page.getByRole('heading', { name: 'Deposits', level: 1 }).waitFor()
    await settled()
    await page
      .getByRole('region', { name: 'Lookup result' })
      .getByText(/found: Credited on /)
      .waitFor()
    await expect(page.locator('#table-deposits tbody tr').first().textContent()).resolves.toContain(
      users[0]!.email,
    )
    await shot('deposits')
    expect(cspViolations).toEqual([])
  })
})
