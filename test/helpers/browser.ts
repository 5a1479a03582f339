// Headless Debian Chromium for the browser tests (playwright-core drives it; Playwright gives each
// launch a fresh profile directory of its own), and a free loopback port for a page's server.
import { createServer } from 'node:net'
import { type Browser, chromium, type Page } from 'playwright-core'

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
}

/** A free loopback port: a document names the address it is served from (PUBLIC_URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** A headless Chromium page of its own, with what the page reported of CSP refusals and errors. */
export interface ConsolePage {
  page: Page
  /** CSP refusals and uncaught page errors seen so far */
  problems: string[]
  close(): Promise<void>
}

export async function openConsolePage(): Promise<ConsolePage> {
  const browser = await launchChromium()
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 } })
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text())
  })
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`))
  return { page, problems, close: () => browser.close() }
}

/**
 * Signs in at `${baseUrl}/admin` with the account and its second factor: the authenticator codes of
 * `admin.nextCode` (an operator made by test/admin/helpers.ts `createAdmin`) for the account's
 * two-factor step and the admin step-up, or else a mailed code (ADMIN_SECOND_FACTOR=totp-or-email).
 */
export async function signInToConsole(
  page: Page,
  baseUrl: string,
  admin: { email: string; password: string; nextCode?: () => string },
  mailedCode: () => Promise<string>,
): Promise<void> {
  await page.goto(`${baseUrl}/admin`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await page.keyboard.type(admin.email)
  await page.keyboard.press('Tab')
  await page.keyboard.type(admin.password)
  await page.keyboard.press('Enter')
  if (admin.nextCode) {
    await page.getByRole('heading', { name: 'Two-factor code' }).waitFor()
    await page.getByLabel('Code', { exact: true }).fill(admin.nextCode())
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByLabel('Authenticator code').fill(admin.nextCode())
  } else {
    await page.getByRole('button', { name: 'Mail me a code' }).click()
    await page.getByText(`A code was mailed to ${admin.email}`).waitFor()
    await page.getByLabel('Mailed code').fill(await mailedCode())
  }
  await page.getByRole('button', { name: 'Unlock admin pages' }).click()
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
}
