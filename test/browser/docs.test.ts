// The API reference as a person uses it: /docs served by the service (Scalar, every asset from
// here), in headless Chromium with no network beyond this service. The sidebar groups the tags as
// the docs/ pages are; the search box finds GET /v1/account by words of its summary; with a token
// typed into the page's authentication box, "Test Request" then "Send" shows the real 200 answer;
// and the page's own Content-Security-Policy refuses nothing it needs.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TAG_GROUPS } from '../../src/http/reference.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage } from '../helpers/browser.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let user: TestUser
let baseUrl: string
let b: ConsolePage
/** requests the page made to anything but this service */
const elsewhere: string[] = []

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl } })
  user = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  await t.app.listen({ port, host: '127.0.0.1' })
  b = await openConsolePage()
  b.page.on('request', (r) => {
    if (!r.url().startsWith(baseUrl) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
      elsewhere.push(r.url())
  })
}, 120_000)

afterAll(async () => {
  await b?.close()
  await t?.close()
})

/** The page, loaded, with the token typed into its authentication box. */
async function openWithToken(page: Page, token: string) {
  await page.goto(`${baseUrl}/docs`)
  const tokenBox = page.locator('input.scalar-password-input').first()
  await tokenBox.waitFor({ timeout: 60_000 })
  await tokenBox.fill(token)
}

/** Finds GET /v1/account through the search box and opens its section. */
async function searchGetAccount(page: Page) {
  await page.getByRole('button', { name: /Open Search/ }).click()
  await page.keyboard.type('full profile')
  await page.locator('a[id$="/tag/account/GET/v1/account"]').click()
  const section = page.locator('section[id$="/tag/account/GET/v1/account"]')
  await section.waitFor({ timeout: 30_000 })
  return section
}

describe('the API reference at /docs', () => {
  it('groups the sidebar as the docs/ pages are', async () => {
    const doc = await (await b.page.request.get(`${baseUrl}/openapi.json`)).json()
    const groups = doc['x-tagGroups'] as { name: string; tags: string[] }[]
    // every tag of the document is in a group, and the groups are the docs/ pages'
    expect(groups.flatMap((g) => g.tags).sort()).toEqual(doc.tags.map((x: { name: string }) => x.name).sort())
    // in the docs/ pages' order; a tag no page covers yet comes last, under "Other"
    expect(groups.map((g) => g.name).filter((n) => n !== 'Other')).toEqual(
      TAG_GROUPS.filter((g) => g.tags.some((tag) => groups.some((x) => x.tags.includes(tag)))).map(
        (g) => g.name,
      ),
    )
    await b.page.goto(`${baseUrl}/docs`)
    for (const g of groups)
      await expect
        .poll(() => b.page.getByText(g.name, { exact: true }).count(), { timeout: 60_000 })
        .toBeGreaterThan(0)
  })

  it('finds an operation by the search box and runs it with a token: the 200 answer', async () => {
    await openWithToken(b.page, user.token)
    const section = await searchGetAccount(b.page)
    expect(b.page.url()).toMatch(/#tag\/account\/GET\/v1\/account$/)
    // code samples for the operation (curl by default)
    await expect.poll(() => section.getByText(/curl/).count(), { timeout: 30_000 }).toBeGreaterThan(0)

    const answered = b.page.waitForResponse(
      (r) => r.url() === `${baseUrl}/v1/account` && r.request().method() === 'GET',
    )
    await section
      .getByRole('button', { name: /Test Request/ })
      .first()
      .click()
    await b.page.getByRole('button', { name: /^Send/ }).first().click()
    const res = await answered
    expect(res.status()).toBe(200)
    expect(res.request().headers().authorization).toBe(`Bearer ${user.token}`)
    expect(await res.json()).toMatchObject({
      status: 'success',
      data: { _id: user.id, email: user.email, firstName: 'Ada', lastName: 'Lovelace' },
    })
  })

  it('loads nothing from elsewhere and its policy refuses nothing', () => {
    expect(elsewhere).toEqual([])
    expect(b.problems).toEqual([])
  })
})
