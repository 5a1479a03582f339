// The console's Identity verifications section in headless Chromium: two users send their images
// through the API, the operator signs in, sees both waiting with their thumbnails (served through
// signed URLs under the console's CSP), approves one and rejects the other with a reason.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, runId, type TestAdmin } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { kycOf, notificationsOf, png, sendImage, startSession } from '../verification/helpers.ts'

let t: TestApp
let baseUrl: string
let browser: ConsolePage
let page: Page
let admin: TestAdmin
const run = runId()

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { ...adminEnv(run), PUBLIC_URL: baseUrl } })
  await t.app.listen({ port, host: '127.0.0.1' })
  admin = await createAdmin(t, run, 0, false)
  browser = await openConsolePage()
  page = browser.page
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const settled = () => page.locator('#main[aria-busy="false"]').waitFor()

async function submitted(user: TestUser, firstName: string) {
  const started = await startSession(t, user, { firstName })
  expect((await sendImage(t, user, 'face', png(16, 40))).statusCode).toBe(200)
  expect((await sendImage(t, user, 'document-front', png(16, 220))).statusCode).toBe(200)
  return started.verification.vendorData
}

it('shows the waiting sessions with their images, approves one and rejects the other', async () => {
  const ada = await createUser(t)
  const bob = await createUser(t)
  const adaId = await submitted(ada, 'Adaline')
  const bobId = await submitted(bob, 'Bobby')

  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))
  await page.keyboard.press('g')
  await page.keyboard.press('v')
  await page.getByRole('heading', { name: 'Identity verifications', level: 1 }).waitFor()
  await settled()

  const adaRow = page.getByRole('row', { name: /Adaline Lovelace/ })
  await expect(adaRow.textContent()).resolves.toMatch(/PASSPORT GB.*P1234567.*operator.*submitted/)
  await expect(adaRow.textContent()).resolves.toContain(ada.email)
  // Both thumbnails load (the signed URLs are served and the console's CSP allows them).
  const images = adaRow.locator('img')
  await expect(images.count()).resolves.toBe(2)
  for (const i of [0, 1]) {
    await expect
      .poll(() =>
        images
          .nth(i)
          .evaluate(
            (img) =>
              (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
              (img as unknown as { naturalWidth: number }).naturalWidth,
          ),
      )
      .toBe(16)
  }

  const adaLabel = `verification of Adaline Lovelace (${adaId.slice(0, 8)}…)`
  await page.getByRole('button', { name: `Approve ${adaLabel}` }).click()
  const approve = page.getByRole('dialog', { name: `Approve ${adaLabel}` })
  await approve.getByLabel('Reason (kept in the audit log)').fill('Selfie matches the passport')
  await approve.getByRole('button', { name: 'Approve' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `Approve ${adaLabel}: Verification approved` })
    .waitFor()
  await settled()
  await expect(page.getByRole('row', { name: /Adaline Lovelace/ }).count()).resolves.toBe(0)

  const bobLabel = `verification of Bobby Lovelace (${bobId.slice(0, 8)}…)`
  await page.getByRole('button', { name: `Reject ${bobLabel}` }).click()
  const reject = page.getByRole('dialog', { name: `Reject ${bobLabel}` })
  await reject.getByLabel('Reason (kept in the audit log)').fill('The document photo is blurred')
  await reject.getByRole('button', { name: 'Reject' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `Reject ${bobLabel}: Verification rejected` })
    .waitFor()
  await settled()
  await expect(page.getByRole('row', { name: /Bobby Lovelace/ }).count()).resolves.toBe(0)

  expect(await kycOf(t, ada)).toEqual({ kyc: true, kycStatus: 'approved' })
  expect(await kycOf(t, bob)).toEqual({ kyc: false, kycStatus: 'declined' })
  const bobNotes = (await notificationsOf(t, bob)).filter((n) => n.type === 'identity_rejected')
  expect(bobNotes[0]?.description).toContain('The document photo is blurred')
  expect(browser.problems).toEqual([])
})
