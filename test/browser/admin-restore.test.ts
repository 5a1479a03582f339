// The console's Unknown platform transfers section in headless Chromium: an escrow's payout leg the
// platform sent in a timeline a restore lost (its release recorded, its sending not) is listed with
// the leg it may have paid; the operator re-attaches it by choosing that leg in the dialog, and the
// leg is settled with the transaction.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { adminEnv, createAdmin, runId, type TestAdmin } from '../admin/helpers.ts'
import { initiate, post, sendFrom } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode } from '../helpers/factories.ts'
import { AVAX } from '../helpers/money.ts'
import { lostSend, lostTopUp, scan } from '../restore/payout-support.ts'

let t: TestApp
let admin: TestAdmin
let baseUrl: string
let browser: ConsolePage
let page: Page
let problems: string[]
const run = runId()

beforeAll(async () => {
  const port = await freePort()
  baseUrl = `http://127.0.0.1:${port}`
  t = await createTestApp({ env: { ...adminEnv(run), PUBLIC_URL: baseUrl } })
  admin = await createAdmin(t, run, 0, false)
  await t.app.listen({ port, host: '127.0.0.1' })
  browser = await openConsolePage()
  page = browser.page
  problems = browser.problems
}, 300_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

const settled = () => page.locator('#main[aria-busy="false"]').waitFor()

it('lists an escrow leg the lost timeline sent with its candidate, and re-attaches it to that leg', async () => {
  const payer = await createUser(t)
  const receiver = await createUser(t)
  const q = await initiate(t, payer, receiver)
  await sendFrom(
    t,
    t.app.services.chain.devnet!.accounts[1]!,
    q.address,
    'avax',
    BigInt(q.amountToPayBaseUnits),
  )
  expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
    'paid',
  )
  expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
  const payout = await t.database.db
    .selectFrom('escrowLegs')
    .selectAll()
    .where('escrowId', '=', q.escrowId)
    .where('kind', '=', 'payout')
    .executeTakeFirstOrThrow()
  const address = String(q.address).toLowerCase()
  await lostTopUp(t, address, AVAX / 100n)
  const txHash = await lostSend(t, address, 'avax', payout.toAddress, BigInt(payout.amount))
  await scan(t)

  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))
  await page.keyboard.press('g')
  await page.keyboard.press('k')
  await page.getByRole('heading', { name: 'Unknown platform transfers', level: 1 }).waitFor()
  await settled()
  const label = `transaction ${txHash.slice(0, 10)}…`
  const row = page.getByRole('row', { name: new RegExp(txHash.slice(2, 10)) })
  await expect(row.textContent()).resolves.toMatch(new RegExp(`payout leg ${payout.id.slice(0, 8)}.*queued`))
  // an open leg matches it: it is re-attached, never booked as a loss (the leg would be sent again)
  await expect(page.getByRole('button', { name: `Re-attach ${label}` }).count()).resolves.toBe(1)
  await expect(page.getByRole('button', { name: `Loss ${label}` }).count()).resolves.toBe(0)

  await page.getByRole('button', { name: `Re-attach ${label}` }).click()
  const dialog = page.getByRole('dialog', { name: `Re-attach ${label}` })
  const select = dialog.getByLabel('The escrow leg it paid')
  await expect(select.inputValue()).resolves.toBe(payout.id)
  await dialog
    .getByLabel('Reason (kept in the audit log)')
    .fill('Restore drill: payout sent after the backup')
  await dialog.getByRole('button', { name: 'Re-attach' }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `Re-attach ${label}: Re-attached` })
    .waitFor()
  await settled()
  await expect(page.getByRole('button', { name: `Re-attach ${label}` }).count()).resolves.toBe(0)

  const finding = await t.database.db
    .selectFrom('platformTransferFindings')
    .selectAll()
    .where('txHash', '=', txHash)
    .executeTakeFirstOrThrow()
  expect(finding).toMatchObject({ status: 'reattached', recordKind: 'escrowLeg', recordId: payout.id })
  expect(problems).toEqual([])
})
