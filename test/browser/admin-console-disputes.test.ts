// Disputes in the console, in headless Chromium over a real job and escrow on the dev chain: an open
// dispute shows what is in escrow; once an admin decides it, the row shows the decision instead
// (amounts, the arbiter, the note and when), not the escrow or an old proposal; the dispute's page
// names who raised and who decided it by email.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { elevateSession, expectOk, type TestAdmin, turnOnTotp } from '../admin/helpers.ts'
import { type ConsolePage, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { lastCode } from '../helpers/factories.ts'
import { workScene } from '../work/helpers.ts'

const W = workScene()
let browser: ConsolePage

beforeAll(async () => {
  browser = await openConsolePage()
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

it('shows an open dispute with its escrow, and a decided one with its decision', async () => {
  const { t, creator } = W.scene
  const arbiter: TestAdmin = W.scene.other
  const { id } = await W.ongoingJob()
  expect((await W.work(creator, id, 'dispute', { reason: 'The page does not load' })).code).toBe(200)
  // (this app names no ADMIN_EMAILS: the arbiter's role is stored as an admin's would be)
  await t.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', arbiter.id).execute()
  await turnOnTotp(t, arbiter)

  const { page, problems } = browser
  await signInToConsole(page, W.scene.ctx.baseUrl, arbiter, () => lastCode(t, arbiter.email))
  await page.goto(`${W.scene.ctx.baseUrl}/admin#/disputes?status=open`)
  await page.getByRole('heading', { name: 'Disputes', level: 1 }).waitFor()
  const open = page.locator('#table-disputes tbody tr', { hasText: id })
  await expect(open.textContent()).resolves.toMatch(/The page does not load.*\$100\.00.*open/)

  await elevateSession(t, arbiter)
  expectOk(
    await t.req({
      method: 'POST',
      url: `/v1/admin/disputes/${id}/decide`,
      token: arbiter.token,
      payload: { creatorAmount: 40, ownerAmount: 60, reason: 'Ticket 88', note: 'Most of it was delivered' },
    }),
  )
  await page.goto(`${W.scene.ctx.baseUrl}/admin#/disputes?status=settling`)
  await page.locator('#main[aria-busy="false"]').waitFor()
  const decided = page.locator('#table-disputes tbody tr', { hasText: id })
  const text = await decided.textContent()
  expect(text).toMatch(/decided: talent \$60\.00 \/ creator \$40\.00 on /)
  expect(text).toContain(arbiter.id)
  expect(text).toContain('note: “Most of it was delivered”')
  expect(text).not.toContain('$100.00')

  // The dispute's page names who raised and who decided it by email, linked to their user pages.
  const listed = expectOk(
    await t.req({ method: 'GET', url: '/v1/admin/disputes?status=settling&limit=100', token: arbiter.token }),
  ).data.find((d: { collection: string }) => d.collection === id)
  await page.goto(`${W.scene.ctx.baseUrl}/admin#/dispute/${listed._id}`)
  await page.locator('#main[aria-busy="false"]').waitFor()
  const raisedBy = page.getByRole('link', { name: creator.email, exact: true })
  await expect(raisedBy.getAttribute('href')).resolves.toBe(`#/user/${creator.id}`)
  const decidedBy = page.getByRole('link', { name: arbiter.email, exact: true })
  await expect(decidedBy.getAttribute('href')).resolves.toBe(`#/user/${arbiter.id}`)
  expect(problems).toEqual([])
})
