// A disputed job's pages in the console, in headless Chromium over a real job paid into escrow on
// the dev chain: the operator opens the dispute from the disputes list and reads its reason, the
// parties' messages and the job's description; follows the links to the job, to its escrow (the
// payer and the state), and from the escrow to the payer's user page, where the escrow and the job
// are listed.
// With SCREENSHOTS=1 (`npm run screenshots`) it also writes docs/img/admin-dispute.png and
// docs/img/admin-escrow.png.
import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { expectOk, type TestAdmin, turnOnTotp } from '../admin/helpers.ts'
import { type ConsolePage, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { lastCode } from '../helpers/factories.ts'
import { workScene } from '../work/helpers.ts'

const SHOTS = process.env.SCREENSHOTS === '1'
const IMG = new URL('../../docs/img/', import.meta.url)
const W = workScene()
let browser: ConsolePage

beforeAll(async () => {
  browser = await openConsolePage()
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

async function shot(name: string) {
  if (!SHOTS) return
  await browser.page.locator('#main[aria-busy="false"]').waitFor()
  mkdirSync(IMG, { recursive: true })
  await browser.page.screenshot({ path: new URL(`admin-${name}.png`, IMG).pathname, fullPage: true })
}

it('opens a dispute, its messages, its job and escrow, and the payer, following the links', async () => {
  const { t, creator, talent } = W.scene
  const operator: TestAdmin = W.scene.stranger
  const { id: jobId, q } = await W.ongoingJob()
  expect((await W.work(creator, jobId, 'dispute', { reason: 'The page does not load' })).code).toBe(200)
  const conv = expectOk(
    await t.req({ method: 'POST', url: '/v1/chat', token: talent.token, payload: { collectionId: jobId } }),
  )
  expectOk(
    await t.req({
      method: 'POST',
      url: `/v1/chat/${conv._id}/messages`,
      token: talent.token,
      payload: { content: 'It loads here; which phone?' },
    }),
  )
  // a support operator (stored role, as ADMIN_EMAILS is not set in this app)
  await t.database.db.updateTable('users').set({ role: 'support' }).where('id', '=', operator.id).execute()
  await turnOnTotp(t, operator)

  const { page, problems } = browser
  const base = W.scene.ctx.baseUrl
  await signInToConsole(page, base, operator, () => lastCode(t, operator.email))
  await page.goto(`${base}/admin#/disputes?status=open`)
  await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor()
  const row = page.locator('#table-disputes tbody tr', { hasText: jobId })
  await row.locator('a[data-link="dispute"]').click()

  await page.getByRole('heading', { name: /^Dispute /, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  const main = page.locator('#main')
  await expect(main.textContent()).resolves.toContain('The page does not load')
  const messages = page.getByRole('region', { name: /^Messages between the parties/ })
  await expect(messages.textContent()).resolves.toMatch(/talent.*It loads here; which phone\?/)
  await expect(main.textContent()).resolves.toContain('One responsive page')
  await shot('dispute')

  // the job, then its escrow
  await main.locator(`a[href="#/job/${jobId}"]`).first().click()
  await page.getByRole('heading', { name: 'Job Landing page', level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  await expect(main.textContent()).resolves.toContain('open')
  await main.locator(`a[href="#/escrow/${q.escrowId}"]`).first().click()
  await page.getByRole('heading', { name: `Escrow ${q.escrowId}`, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  await expect(main.textContent()).resolves.toMatch(/paid/)
  await expect(page.getByRole('region', { name: 'Payout legs' }).isVisible()).resolves.toBe(true)
  await shot('escrow')

  // the payer's page lists the escrow and the job
  await main.locator(`a[href="#/user/${creator.id}"]`).first().click()
  await page.getByRole('heading', { name: `User ${creator.email}`, level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()
  await expect(page.getByRole('region', { name: 'Escrows' }).textContent()).resolves.toMatch(/payer.*paid/)
  await expect(page.getByRole('region', { name: 'Jobs' }).textContent()).resolves.toMatch(
    /Landing page.*creator/,
  )
  expect(problems).toEqual([])
})

it('keeps the page the operator moved to when the page left behind gets its data late', async () => {
  const { page, problems } = browser
  const base = W.scene.ctx.baseUrl
  // the dashboard's overview is held until the operator has opened the disputes list
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let asked = () => {}
  const overviewAsked = new Promise<void>((resolve) => {
    asked = resolve
  })
  await page.route('**/v1/admin/stats/overview', async (route) => {
    asked()
    await held
    await route.continue()
  })
  await page.goto(`${base}/admin#/`)
  await overviewAsked
  await page.goto(`${base}/admin#/disputes?status=open`)
  await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor()
  await page.locator('#main[aria-busy="false"]').waitFor()

  // the dashboard gets its data and draws its last part after the ages of transfers arrive
  const agesAnswered = page.waitForResponse('**/v1/admin/stats/transfer-ages')
  release()
  await (await agesAnswered).finished()
  await page.unroute('**/v1/admin/stats/overview')
  // the late dashboard never draws over the disputes list
  await expect(
    page.locator('#main h1', { hasText: /^Dashboard$/ }).waitFor({ timeout: 1500 }),
  ).rejects.toThrow(/Timeout/)
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Disputes')
  await expect(page.locator('#table-disputes').isVisible()).resolves.toBe(true)
  expect(problems).toEqual([])
})
