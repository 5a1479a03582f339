// Passkeys in the operator console, in headless Chromium with its virtual authenticator (CDP
// WebAuthn domain: a CTAP2 platform authenticator with resident keys and user verification): an
// operator unlocks with the authenticator app, adds a passkey on the Passkeys page, signs out,
// signs in again and unlocks with "Use a passkey"; the service verified every step with the relying
// party it derived from PUBLIC_URL (http://localhost:PORT, RP ID localhost). Then the passkey is
// removed and the sign-in offers the authenticator code alone. Last, an admin clears another
// operator's authenticator app from the Users page.
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  adminEnv,
  auditRows,
  createAdmin,
  elevateSession,
  expectOk,
  runId,
  type TestAdmin,
  turnOnTotp,
} from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { type ConsolePage, freePort, openConsolePage, signInToConsole } from '../helpers/browser.ts'
import { createUser, lastCode } from '../helpers/factories.ts'

let t: TestApp
let baseUrl: string
let admin: TestAdmin
let c: ConsolePage

beforeAll(async () => {
  const port = await freePort()
  // (browsers refuse an IP address as RP ID: the console is opened at localhost)
  baseUrl = `http://localhost:${port}`
  const run = runId()
  t = await createTestApp({ env: { PUBLIC_URL: baseUrl, ...adminEnv(run) } })
  admin = await createAdmin(t, run, 0, false)
  await t.app.listen({ port, host: '127.0.0.1' })
  c = await openConsolePage()
}, 300_000)

afterAll(async () => {
  await c?.close()
  await t?.close()
})

async function passwordAndCode() {
  const { page } = c
  await page.goto(`${baseUrl}/admin`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await page.getByLabel('Email').fill(admin.email)
  await page.getByLabel('Password').fill(admin.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Two-factor code' }).waitFor()
  await page.getByLabel('Code', { exact: true }).fill(admin.nextCode!())
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.getByRole('heading', { name: 'Admin second factor' }).waitFor()
}

it('adds a passkey, signs out, and unlocks the next session with it', async () => {
  const { page } = c
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  })

  await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))
  await page.goto(`${baseUrl}/admin#/passkeys`)
  await page.getByRole('heading', { name: 'Passkeys', level: 1 }).waitFor()
  await page.getByText('No passkeys yet').waitFor()
  await page.getByLabel('Name of the new passkey').fill('Virtual laptop')
  await page.getByRole('button', { name: 'Add a passkey' }).click()
  await page.getByText('Passkey “Virtual laptop” added.').waitFor()
  await page.getByRole('cell', { name: 'Virtual laptop', exact: true }).waitFor()

  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  expect(credentials).toHaveLength(1)
  const stored = await t.database.db
    .selectFrom('adminPasskeys')
    .selectAll()
    .where('userId', '=', admin.id)
    .execute()
  expect(stored.map((p) => p.id)).toEqual([
    credentials[0]!.credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'),
  ])

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()

  await passwordAndCode()
  // with a passkey, the step-up offers it beside the authenticator code
  await page.getByLabel('Authenticator code').waitFor()
  await page.getByRole('button', { name: 'Use a passkey' }).click()
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor()
  await page.locator('#who').getByText('unlocked until').waitFor()

  const elevations = await auditRows(t, 'admin.session.elevate')
  expect(elevations.at(-1)).toMatchObject({ actorId: admin.id, reason: 'second factor (passkey)' })
  const after = await t.database.db
    .selectFrom('adminPasskeys')
    .selectAll()
    .where('userId', '=', admin.id)
    .executeTakeFirstOrThrow()
  expect(after.lastUsedAt).not.toBeNull()
  const { credentials: used } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  expect(Number(after.counter)).toBe(used[0]!.signCount)

  // removed on the Passkeys page, with a reason; the next sign-in offers the code alone
  await page.goto(`${baseUrl}/admin#/passkeys`)
  await page.getByRole('cell', { name: 'Virtual laptop', exact: true }).waitFor()
  await page.getByRole('button', { name: 'Remove' }).click()
  await page.getByLabel('Reason (kept in the audit log)').fill('moving to a new laptop')
  await page.locator('dialog').getByRole('button', { name: 'Remove' }).click()
  await page.getByText('No passkeys yet').waitFor()
  expect((await auditRows(t, 'admin.passkey.remove')).at(-1)).toMatchObject({
    actorId: admin.id,
    reason: 'moving to a new laptop',
  })
  await page.getByRole('button', { name: 'Sign out' }).click()
  // the sign-out has revoked the session and dropped the token before the console is opened again
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await passwordAndCode()
  await page.getByLabel('Authenticator code').waitFor()
  expect(await page.getByRole('button', { name: 'Use a passkey' }).count()).toBe(0)
  expect(c.problems).toEqual([])
})

it('an admin clears another operator’s second factor from the Users page', async () => {
  // (a browser of its own: nothing left from the passkey's sign-ins)
  const own = await openConsolePage()
  try {
    const { page } = own
    const target: TestAdmin = await createUser(t)
    await turnOnTotp(t, target)
    expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/users/${target.id}/role`,
        token: (await elevated()).token,
        payload: { role: 'support', reason: 'joined support' },
      }),
    )
    await signInToConsole(page, baseUrl, admin, () => lastCode(t, admin.email))
    await page.goto(`${baseUrl}/admin#/users?q=${encodeURIComponent(target.email)}`)
    await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
    const row = page.locator('tr', { hasText: target.email })
    await row.getByRole('button', { name: /^Clear second factor/ }).click()
    await page.getByLabel('Clear', { exact: true }).selectOption('totp')
    await page.getByLabel('Reason (kept in the audit log)').fill('ticket 812: phone lost')
    await page.locator('dialog').getByRole('button', { name: 'Clear second factor' }).click()
    await page
      .getByText(/Second factor cleared/)
      .first()
      .waitFor()
    expect((await auditRows(t, 'user.second-factor.reset')).at(-1)).toMatchObject({
      actorId: admin.id,
      targetId: target.id,
      details: { factors: ['totp'], totpCleared: true, passkeysRemoved: 0 },
    })
    // the target's sessions ended with it
    expect((await t.req({ method: 'GET', url: '/v1/account', token: target.token })).statusCode).toBe(401)
    expect(own.problems).toEqual([])
  } finally {
    await own.close()
  }
})

/** The admin's own API session, unlocked (for setting up the scene). */
async function elevated() {
  await elevateSession(t, admin)
  return admin
}
