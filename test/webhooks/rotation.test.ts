// Standard Webhooks signing through secret rotation, on the real app, database and dev chain, each
// delivery verified with the `standardwebhooks` npm package as a receiver would: during the overlap
// both secrets sign (two signatures in one header), a retry after the overlap carries only the new
// one, a second rotation drops the oldest, and a secret stored in the earlier base64url spelling
// signs with the same key bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { secretAad } from '../../src/modules/webhooks/catalog.ts'
import { standardSpelling } from '../../src/modules/webhooks/signing.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC, walletAddress } from '../helpers/money.ts'
import { type Receiver, startReceiver, verifyAsReceiver } from './receiver.ts'

let t: TestApp
let r: Receiver
let ada: TestUser

beforeAll(async () => {
  t = await createTestApp()
  r = await startReceiver(() => t.clock.now().getTime())
  ada = await createUser(t)
  await t.app.services.chain.devnet!.fund(
    t.app.services.chain.devnet!.accounts[3]!.address,
    'usdc',
    1_000n * USDC,
  )
})
afterAll(async () => {
  await t?.close()
  await r?.close()
})

const MINUTE = 60_000
const HOUR = 60 * MINUTE

async function register(path: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/webhooks',
    token: ada.token,
    payload: { url: r.url(path), events: ['deposit.credited'] },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { _id: string; secret: string }
}

async function rotate(id: string, payload?: Record<string, unknown>) {
  const res = await t.req({ method: 'POST', url: `/v1/webhooks/${id}/rotate`, token: ada.token, payload })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { secret: string; previousSecretExpiresAt: string | null }
}

async function deposit(amount: bigint) {
  await sendFrom(t, t.app.services.chain.devnet!.accounts[3]!, await walletAddress(t, ada), 'usdc', amount)
  await t.app.services.settlement.watcher.scanNow()
  await t.drain()
}

const at = (path: string) => r.received.filter((x) => x.path === path)
const signatures = (g: { headers: Record<string, unknown> }) =>
  String(g.headers['webhook-signature']).split(' ')
const notSigned = 'No matching signature found'

describe('rotation with an overlap', () => {
  it('both secrets sign until the old one expires; retries after that carry the new one alone', async () => {
    const ep = await register('/overlap')
    const before = Date.parse(t.clock.now().toISOString())
    const rot = await rotate(ep._id)
    // the default overlap: 24 hours, shown on the endpoint
    const expires = Date.parse(rot.previousSecretExpiresAt!)
    expect(expires - before).toBeGreaterThanOrEqual(24 * HOUR)
    expect(expires - before).toBeLessThan(24 * HOUR + MINUTE)
    const shown = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}`, token: ada.token })
    expect(shown.json().data.previousSecretExpiresAt).toBe(rot.previousSecretExpiresAt)

    // first attempt fails (500), inside the overlap: two signatures, each secret verifies alone
    r.answers.push(500, 500)
    await deposit(USDC)
    let got = at('/overlap')
    expect(got).toHaveLength(1)
    expect(signatures(got[0]!)).toHaveLength(2)
    for (const s of signatures(got[0]!)) expect(s).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(verifyAsReceiver(rot.secret, got[0]!, got[0]!.receivedAt)).toMatchObject({
      type: 'deposit.credited',
    })
    expect(verifyAsReceiver(ep.secret, got[0]!, got[0]!.receivedAt)).toMatchObject({
      type: 'deposit.credited',
    })

    // the retry a minute later: still inside the overlap
    t.clock.advance(MINUTE)
    await t.drain()
    got = at('/overlap')
    expect(got).toHaveLength(2)
    expect(signatures(got[1]!)).toHaveLength(2)
    expect(verifyAsReceiver(ep.secret, got[1]!, got[1]!.receivedAt)).toBeTruthy()

    // a day later the old secret has expired: the next retries carry the new signature only
    t.clock.advance(24 * HOUR)
    await t.drain()
    got = at('/overlap')
    expect(got).toHaveLength(3)
    expect(got.map((g) => g.status)).toEqual([500, 500, 200])
    expect(signatures(got[2]!)).toHaveLength(1)
    expect(verifyAsReceiver(rot.secret, got[2]!, got[2]!.receivedAt)).toMatchObject({
      type: 'deposit.credited',
    })
    expect(() => verifyAsReceiver(ep.secret, got[2]!, got[2]!.receivedAt)).toThrow(notSigned)
    // the same event on every attempt: one id, one body
    expect(new Set(got.map((g) => g.headers['webhook-id'])).size).toBe(1)
    expect(new Set(got.map((g) => g.body)).size).toBe(1)
    const after = await t.req({ method: 'GET', url: `/v1/webhooks/${ep._id}`, token: ada.token })
    expect(after.json().data.previousSecretExpiresAt).toBeNull()
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('a second rotation within the overlap keeps the one it replaces and drops the oldest', async () => {
    const ep = await register('/twice')
    const first = await rotate(ep._id, { previousSecretExpiresIn: 3600 })
    const second = await rotate(ep._id, { previousSecretExpiresIn: 600 })
    const expires = Date.parse(second.previousSecretExpiresAt!) - t.clock.now().getTime()
    expect(expires).toBeGreaterThan(590_000)
    expect(expires).toBeLessThanOrEqual(600_000)
    await deposit(USDC)
    const [got] = at('/twice')
    expect(signatures(got!)).toHaveLength(2)
    expect(verifyAsReceiver(second.secret, got!, got!.receivedAt)).toBeTruthy()
    expect(verifyAsReceiver(first.secret, got!, got!.receivedAt)).toBeTruthy()
    expect(() => verifyAsReceiver(ep.secret, got!, got!.receivedAt)).toThrow(notSigned)
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })

  it('refuses an overlap longer than 7 days or negative', async () => {
    const ep = await register('/bounds')
    for (const previousSecretExpiresIn of [-1, 7 * 24 * 3600 + 1, 1.5]) {
      const res = await t.req({
        method: 'POST',
        url: `/v1/webhooks/${ep._id}/rotate`,
        token: ada.token,
        payload: { previousSecretExpiresIn },
      })
      expect(res.statusCode, String(previousSecretExpiresIn)).toBe(400)
      expect(res.json().data.code).toBe('VALIDATION_ERROR')
    }
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })
})

describe('secrets issued before Standard Webhooks signing', () => {
  it('a base64url secret signs with the same key bytes; its standard spelling verifies', async () => {
    const ep = await register('/legacy')
    // what the platform issued before: whsec_ and 32 bytes in base64url, no padding
    const bytes = Buffer.from('fb'.repeat(16) + 'ff'.repeat(16), 'hex')
    const legacy = `whsec_${bytes.toString('base64url')}`
    expect(legacy).toMatch(/[-_]/)
    await t.database.db
      .updateTable('webhookEndpoints')
      .set({ secretSealed: t.app.services.secrets.seal(legacy, secretAad(ep._id)) })
      .where('id', '=', ep._id)
      .execute()
    await deposit(USDC)
    const [got] = at('/legacy')
    const spelled = standardSpelling(legacy)
    expect(spelled).toBe(`whsec_${bytes.toString('base64')}`)
    expect(verifyAsReceiver(spelled, got!, got!.receivedAt)).toMatchObject({ type: 'deposit.credited' })
    // the package reads standard base64 only: the old spelling must be converted (docs/webhooks.md)
    expect(() => verifyAsReceiver(legacy, got!, got!.receivedAt)).toThrow()
    await t.req({ method: 'DELETE', url: `/v1/webhooks/${ep._id}`, token: ada.token })
  })
})
