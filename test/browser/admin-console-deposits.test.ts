// "Where is my deposit?" in the console, in headless Chromium, by a support operator: a hash that is
// not one, a deposit on the real dev chain found credited to its customer with the explanation to
// give them, and its block range re-scanned with a reason that the audit log keeps.
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, expectOk, runId, type TestAdmin, turnOnTotp } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { walletAddress } from '../helpers/money.ts'
import { AVAX } from '../withdrawals/helpers.ts'

let t: TestApp
let baseUrl: string
let support: TestAdmin
let customer: TestUser
let browser: ConsolePage

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  const run = runId()
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, ...adminEnv(run) } })
  const admin = await createAdmin(t, run, 0)
  customer = await createUser(t, { firstName: 'Ada', lastName: 'Lovelace' })
  support = await createUser(t)
  expectOk(
    await t.req({
      method: 'POST',
      url: `/v1/admin/users/${support.id}/role`,
      token: admin.token,
      payload: { role: 'support', reason: 'joined support' },
    }),
  )
  await turnOnTotp(t, support)
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

async function pay(to: string, amount: bigint): Promise<Hex> {
  const c = t.app.services.chain
  const from = c.devnet!.accounts[6]!
  const signed = await c.signTransfer(from.privateKey, {
    coin: 'avax',
    to,
    amount,
    nonce: await c.getNonce(from.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  await c.waitForReceipt(signed.hash)
  return signed.hash
}

it('finds a credited deposit by its hash and re-scans its block range with a reason', async () => {
  const { page, problems } = browser
  const hash = await pay(await walletAddress(t, customer), AVAX / 2n)
  await t.app.services.settlement.watcher.scanNow()
  await t.drain()

  await signInToConsole(page, baseUrl, support, () => lastCode(t, support.email))
  await page.keyboard.press('g')
  await page.keyboard.press('h')
  await page.getByRole('heading', { name: 'Deposits', level: 1 }).waitFor()
  await page.getByText('Enter the hash of the transaction the customer sent.').waitFor()

  await page.getByLabel('Transaction hash').fill('0x1234')
  await page.getByRole('button', { name: 'Apply' }).click()
  await page.getByText('A transaction hash is 0x and 64 hexadecimal characters.').waitFor()

  await page.getByLabel('Transaction hash').fill(hash)
  await page.getByRole('button', { name: 'Apply' }).click()
  const result = page.getByRole('region', { name: 'Lookup result' })
  await result.getByText(/found: Credited on /).waitFor()
  await expect(result.textContent()).resolves.toContain('found:')
  const row = page.locator('#table-deposits tbody tr')
  await expect(row.textContent()).resolves.toMatch(new RegExp(`credited.*0\\.5.*${customer.email}`, 'i'))

  await row.getByRole('button', { name: /^Re-scan blocks/ }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('Reason (kept in the audit log)').fill('Ticket 5120: customer says not credited')
  await dialog.getByRole('button', { name: 'Re-scan blocks' }).click()
  await page.getByRole('status').filter({ hasText: 'Rescan queued' }).waitFor()

  const audit = await t.database.db
    .selectFrom('adminAudit')
    .select(['actorId', 'reason', 'targetId'])
    .where('action', '=', 'deposit.rescan')
    .execute()
  expect(audit).toEqual([
    {
      actorId: support.id,
      reason: 'Ticket 5120: customer says not credited',
      targetId: (await walletAddress(t, customer)).toLowerCase(),
    },
  ])
  expect(problems).toEqual([])
})
