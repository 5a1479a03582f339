// The withdrawals list's filters in the console, in headless Chromium over real withdrawals on the
// dev chain: newest first unless the operator picks another order, and the From / To days, the
// coin and the account narrow what it lists.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type TestAdmin, turnOnTotp } from '../admin/helpers.ts'
import { type ConsolePage, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { lastCode } from '../helpers/factories.ts'
import { AVAX } from '../helpers/money.ts'
import { freshAddress, fundUser } from '../withdrawals/helpers.ts'
import { workScene } from '../work/helpers.ts'

const W = workScene()
let browser: ConsolePage

beforeAll(async () => {
  browser = await openConsolePage()
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

/** The UTC day `offset` days from the one `at` falls on. */
const dayOf = (at: Date, offset: number) =>
  new Date(at.getTime() + offset * 86_400_000).toISOString().slice(0, 10)

it('lists withdrawals newest first and narrows them by day, coin and account', async () => {
  const { t, talent, stranger } = W.scene
  const operator: TestAdmin = W.scene.other
  await fundUser(t, 4, talent, 'avax', AVAX)
  const withdraw = async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: talent.token,
      payload: { amount: 0.1, coin: 'avax', address: freshAddress(), password: talent.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data.withdrawalId as string
  }
  const first = await withdraw()
  const second = await withdraw()
  const rows = await t.database.db
    .selectFrom('withdrawals')
    .select('createdAt')
    .where('id', 'in', [first, second])
    .execute()
  const days = new Set(rows.map((r) => dayOf(new Date(r.createdAt), 0)))
  expect(days.size).toBe(1) // (both on one UTC day: the day filters below take theirs)
  const made = new Date(rows[0]!.createdAt)
  const day = (offset: number) => dayOf(made, offset)
  // (this app names no ADMIN_EMAILS: the operator's role is stored as an admin's would be)
  await t.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', operator.id).execute()
  await turnOnTotp(t, operator)

  const { page, problems } = browser
  const base = W.scene.ctx.baseUrl
  await signInToConsole(page, base, operator, () => lastCode(t, operator.email))
  // (the list drawn before is marked: the one the filters ask for replaces it once it is loaded)
  const listed = async () => {
    await page.locator('#table-withdrawals:not([data-drawn-before])').waitFor()
    await page.locator('#main[aria-busy="false"]').waitFor()
    await page.locator('#table-withdrawals').evaluate((e) => e.setAttribute('data-drawn-before', ''))
    const hrefs = await page
      .locator('#table-withdrawals tbody a[data-link="withdrawal"]')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href')))
    return hrefs.map((h) => decodeURIComponent(String(h).replace('#/withdrawal/', '')))
  }
  const apply = async (values: Record<string, string>) => {
    const form = page.getByRole('search', { name: 'Filter withdrawals' })
    for (const [label, value] of Object.entries(values)) {
      const field = form.getByLabel(label, { exact: true })
      if ((await field.evaluate((e) => e.tagName)) === 'SELECT') await field.selectOption(value)
      else await field.fill(value)
    }
    await form.getByRole('button', { name: 'Apply' }).click()
    return listed()
  }

  await page.goto(`${base}/admin#/withdrawals`)
  await page.getByRole('heading', { name: 'Withdrawals', level: 1 }).waitFor()
  // newest first by default (the API's own default is oldest first)
  const all = await listed()
  expect(all.indexOf(second)).toBeGreaterThanOrEqual(0)
  expect(all.indexOf(second)).toBeLessThan(all.indexOf(first))
  await expect(
    page
      .getByRole('search', { name: 'Filter withdrawals' })
      .getByLabel('Order', { exact: true })
      .inputValue(),
  ).resolves.toBe('newest')

  // today, as both the first and the (included) last day: both are listed
  expect(await apply({ 'From (UTC day)': day(0), 'To (UTC day, included)': day(0) })).toEqual(
    expect.arrayContaining([first, second]),
  )
  // up to yesterday, or from tomorrow: neither
  expect(await apply({ 'From (UTC day)': day(-3), 'To (UTC day, included)': day(-1) })).toEqual([])
  expect(await apply({ 'From (UTC day)': day(1), 'To (UTC day, included)': '' })).toEqual([])
  expect(page.url()).toContain(`from=${day(1)}`)

  // the account and the coin, with the oldest first
  const mine = await apply({ 'From (UTC day)': '', 'User id': talent.id, Coin: 'AVAX', Order: 'oldest' })
  expect(mine).toEqual([first, second])
  expect(await apply({ 'User id': stranger.id, Coin: '' })).toEqual([])
  expect(await apply({ 'User id': talent.id, Coin: 'usdc' })).toEqual([])
  expect(problems).toEqual([])
})
