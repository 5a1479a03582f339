// The API reference as a person uses it: /docs served by the service, in headless Chromium. The
// page renders the document, takes a bearer token through "Authorize", and "Try it out" on
// GET /v1/account shows the real 200 answer; without a token the same call shows 401.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { freePort, launchChromium } from '../helpers/browser.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
let baseUrl: string
let context: BrowserContext
let browser: Browser

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl } })
  user = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await launchChromium()
  // The reference renders only the operations near the viewport (scrolling brings the others in,
  // and takes the far ones out): a page tall enough for the whole document has them all at once.
  context = await browser.newContext({ viewport: { width: 1280, height: 20_000 } })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

/** Opens GET /v1/account in the reference, runs it, and returns the status code the page shows. */
async function tryGetAccount(page: Page): Promise<string> {
  const op = page.locator('#operations-account-getAccount')
  await op.locator('.opblock-summary').click()
  await op.locator('button.try-out__btn').click()
  await op.locator('button.execute').click()
  const status = op.locator('.live-responses-table .response .response-col_status').first()
  await status.waitFor({ timeout: 30_000 })
  return (await status.textContent())?.trim() ?? ''
}

describe('the API reference at /docs', () => {
  it('renders every tag of the document', async () => {
    const page = await context.newPage()
    try {
      await page.goto(`${baseUrl}/docs`)
      await page.locator('.information-container .title').waitFor({ timeout: 30_000 })
      expect(await page.locator('.information-container .title').textContent()).toContain('WorkPay API')
      const doc = await (await page.request.get(`${baseUrl}/openapi.json`)).json()
      for (const tag of doc.tags as Array<{ name: string }>)
        await expect
          .poll(() => page.locator(`#operations-tag-${tag.name}`).count(), { timeout: 30_000 })
          .toBe(1)
    } finally {
      await page.close()
    }
  })

  it('authorises with a token and runs "Try it out" on GET /v1/account with the 200 answer', async () => {
    const page = await context.newPage()
    try {
      await page.goto(`${baseUrl}/docs`)
      await page.locator('button.authorize').first().click()
      const dialog = page.locator('.dialog-ux .modal-ux')
      // The user token's scheme (`bearer`), not the operators' METRICS_TOKEN beside it.
      const bearer = dialog.locator('form').filter({ has: page.locator('h4 code', { hasText: /^bearer$/ }) })
      await bearer.locator('input').fill(user.token)
      await bearer.locator('button.authorize').click()
      await bearer.locator('button.btn-done').click()

      expect(await tryGetAccount(page)).toBe('200')
      const body = await page
        .locator('#operations-account-getAccount .live-responses-table .response-col_description pre')
        .first()
        .textContent()
      const answer = JSON.parse(body ?? '{}')
      expect(answer).toMatchObject({
        status: 'success',
        data: { _id: user.id, email: user.email, firstName: 'Ada', lastName: 'Lovelace' },
      })
    } finally {
      await page.close()
    }
  })

  it('shows the 401 answer of the same call without a token', async () => {
    const page = await context.newPage()
    try {
      await page.goto(`${baseUrl}/docs`)
      expect(await tryGetAccount(page)).toBe('401')
    } finally {
      await page.close()
    }
  })
})
