// Veriff as the provider. Veriff's side of the wire is a small real HTTP server that records what
// the service sends and answers as Veriff's API v1 documents (there is no Veriff software to run);
// the decision webhook is signed here with the documented algorithm (hex HMAC-SHA256 of the raw
// body with the shared secret) and sent to the service as Veriff would.
import { createHmac, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectOk } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { ATTEMPTS, kycOf, NEW, notificationsOf, PERSON, png, sendImage, startSession } from './helpers.ts'

const API_KEY = 'veriff-test-api-key-0123'
const SECRET = 'veriff-test-shared-secret-4567'
const WEBHOOK = '/v1/user-verification/veriff/decision'

interface Recorded {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: string
  openTransactions: number
}

let t: TestApp
let veriff: Server
let base: string
const calls: Recorded[] = []
let failNext = false

beforeAll(async () => {
  veriff = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8')
      // The service waits for this answer: its database must be free meanwhile (PGlite has one
      // connection, so a transaction held across the call would never let this query finish).
      await t.database.db.selectFrom('identityVerifications').select('id').limit(1).execute()
      // On PostgreSQL, no other session of the test database may sit inside a transaction either.
      const openTransactions =
        t.database.kind === 'postgres'
          ? Number(
              (
                await sql<{ n: string }>`select count(*) as n from pg_stat_activity
                  where datname = current_database() and state like 'idle in transaction%'
                  and pid <> pg_backend_pid()`.execute(t.database.db)
              ).rows[0]?.n ?? 0,
            )
          : 0
      calls.push({
        method: req.method!,
        path: req.url!,
        headers: req.headers,
        body,
        openTransactions,
      })
      if (failNext) {
        failNext = false
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"status":"fail"}')
        return
      }
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      if (req.headers['x-auth-client'] !== API_KEY) return json(401, { status: 'fail', code: 1801 })
      if (req.method === 'POST' && req.url === '/v1/sessions') {
        const id = randomUUID()
        const sent = JSON.parse(body)
        return json(201, {
          status: 'success',
          verification: {
            id,
            url: `${base}/v/${id}`,
            vendorData: sent.verification.vendorData,
            host: base,
            status: 'created',
            sessionToken: `token-${id}`,
          },
        })
      }
      const signed =
        req.headers['x-hmac-signature'] === createHmac('sha256', SECRET).update(body).digest('hex')
      if (!signed) return json(401, { status: 'fail', code: 1812 })
      if (req.method === 'POST' && /^\/v1\/sessions\/[\w-]+\/media$/.test(req.url!))
        return json(200, { status: 'success', image: { id: randomUUID() } })
      if (req.method === 'PATCH' && /^\/v1\/sessions\/[\w-]+$/.test(req.url!))
        return json(200, { status: 'success', verification: { status: 'submitted' } })
      json(404, { status: 'fail' })
    })
  })
  await new Promise<void>((resolve) => veriff.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(veriff.address() as AddressInfo).port}`
  t = await createTestApp({
    env: { VERIFF_API_KEY: API_KEY, VERIFF_SHARED_SECRET: SECRET, VERIFF_BASE_URL: base },
  })
})
afterAll(async () => {
  await t?.close()
  await new Promise((resolve) => veriff?.close(resolve))
})

const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex')

function webhook(body: string, headers: Record<string, string>) {
  return t.req({
    method: 'POST',
    url: WEBHOOK,
    headers: { 'content-type': 'application/json', ...headers },
    payload: body,
  })
}
const signedWebhook = (payload: unknown) => {
  const body = JSON.stringify(payload)
  return webhook(body, { 'x-auth-client': API_KEY, 'x-hmac-signature': sign(body) })
}
const decision = (id: string, vendorData: string, status: string, extra: Record<string, unknown> = {}) => ({
  status: 'success',
  verification: {
    id,
    attemptId: randomUUID(),
    code: status === 'approved' ? 9001 : 9102,
    status,
    vendorData,
    reason: null,
    reasonCode: null,
    decisionTime: '2026-11-29T10:00:00.000Z',
    acceptanceTime: '2026-11-29T09:59:00.000Z',
    person: { firstName: 'ADA', lastName: 'LOVELACE' },
    document: {
      number: 'P1234567',
      type: 'PASSPORT',
      country: 'GB',
      validFrom: '2020-01-01',
      validUntil: '2030-01-01',
    },
    ...extra,
  },
  technicalData: { ip: '192.0.2.1' },
})

async function submittedSession(user: TestUser) {
  const started = await startSession(t, user)
  expectOk(await sendImage(t, user, 'face', png(4, 1)))
  expect(expectOk(await sendImage(t, user, 'document-front', png(4, 2))).status).toBe('submitted')
  return started.verification
}

describe('Veriff provider', () => {
  it('opens the session at Veriff, passes the images on signed and submits', async () => {
    const user = await createUser(t)
    calls.length = 0
    const started = await startSession(t, user)
    expect(started.verification).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${base}/v/${started.verification.id}`,
      host: base,
      status: 'created',
      sessionToken: `token-${started.verification.id}`,
      vendorData: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    const create = calls[0]!
    expect(create).toMatchObject({ method: 'POST', path: '/v1/sessions' })
    expect(create.headers['x-auth-client']).toBe(API_KEY)
    expect(create.headers['content-type']).toBe('application/json')
    expect(JSON.parse(create.body)).toEqual({
      verification: {
        callback: t.config.publicUrl,
        person: { firstName: 'Ada', lastName: 'Lovelace', gender: 'F', dateOfBirth: '1990-12-10' },
        document: { number: 'P1234567', type: 'PASSPORT', country: 'GB' },
        address: { fullAddress: PERSON.fullAddress },
        vendorData: started.verification.vendorData,
      },
    })

    const face = png(4, 9)
    expectOk(await sendImage(t, user, 'face', face))
    expect(expectOk(await sendImage(t, user, 'document-front', png(4, 8))).status).toBe('submitted')
    const [media1, media2, patch] = calls.slice(1)
    for (const call of [media1!, media2!, patch!]) {
      expect(call.headers['x-auth-client']).toBe(API_KEY)
      expect(call.headers['x-hmac-signature']).toBe(sign(call.body))
    }
    expect(media1!.path).toBe(`/v1/sessions/${started.verification.id}/media`)
    expect(JSON.parse(media1!.body).image).toEqual({
      context: 'face',
      content: `data:image/png;base64,${face.toString('base64')}`,
      timestamp: expect.any(String),
    })
    expect(JSON.parse(media2!.body).image.context).toBe('document-front')
    expect(patch).toMatchObject({ method: 'PATCH', path: `/v1/sessions/${started.verification.id}` })
    expect(JSON.parse(patch!.body)).toEqual({ verification: { status: 'submitted' } })
    // No call was made while a transaction of the service was open.
    expect(calls.map((c) => c.openTransactions)).toEqual([0, 0, 0, 0])
  })

  it('keeps nothing when Veriff fails', async () => {
    const user = await createUser(t)
    failNext = true
    expectError(
      await t.req({ method: 'POST', url: NEW, token: user.token, payload: PERSON }),
      503,
      'IDENTITY_PROVIDER_UNAVAILABLE',
    )
    expect(expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token })).verifications).toEqual(
      [],
    )
    await startSession(t, user)
    const files = () =>
      t.database.db
        .selectFrom('files')
        .select('id')
        .where('uploadedBy', '=', user.id)
        .where('deletedAt', 'is', null)
        .execute()
    failNext = true
    expectError(await sendImage(t, user, 'face', png()), 503, 'IDENTITY_PROVIDER_UNAVAILABLE')
    expect(await files()).toEqual([])
    expect(
      expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token })).verifications[0]
        .verificationMetaData.media,
    ).toEqual([])
  })

  it('the signed decision webhook: bad signatures refused, unknown sessions 404, a replay changes nothing', async () => {
    const user = await createUser(t)
    const session = await submittedSession(user)
    const approved = decision(session.id, session.vendorData, 'approved')
    const body = JSON.stringify(approved)

    // Refused before anything is read: wrong, missing, other-secret, tampered, wrong client key.
    expectError(
      await webhook(body, { 'x-auth-client': API_KEY, 'x-hmac-signature': 'ab'.repeat(32) }),
      401,
      'INVALID_SIGNATURE',
    )
    expectError(await webhook(body, { 'x-auth-client': API_KEY }), 401, 'INVALID_SIGNATURE')
    expectError(
      await webhook(body, { 'x-auth-client': API_KEY, 'x-hmac-signature': sign(body, 'another-secret') }),
      401,
      'INVALID_SIGNATURE',
    )
    const tampered = body.replace('"approved"', '"declined"')
    expectError(
      await webhook(tampered, { 'x-auth-client': API_KEY, 'x-hmac-signature': sign(body) }),
      401,
      'INVALID_SIGNATURE',
    )
    expectError(
      await webhook(body, { 'x-auth-client': 'someone-else', 'x-hmac-signature': sign(body) }),
      401,
      'INVALID_SIGNATURE',
    )
    expectError(await webhook(body, { 'x-hmac-signature': sign(body) }), 401, 'INVALID_SIGNATURE')
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: 'pending' })

    // Properly signed but about no session of ours, or another session's vendorData.
    expectError(await signedWebhook(decision(randomUUID(), session.vendorData, 'approved')), 404, 'NOT_FOUND')
    expectError(
      await signedWebhook(decision(session.id, '0123456789abcdef01234567', 'approved')),
      404,
      'NOT_FOUND',
    )
    expectError(
      await signedWebhook(decision(session.id, session.vendorData, 'maybe')),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await signedWebhook({ status: 'success' }), 400, 'VALIDATION_ERROR')

    const first = expectOk(
      await webhook(body, { 'x-auth-client': API_KEY, 'x-hmac-signature': sign(body).toUpperCase() }),
    )
    expect(first).toEqual({ verificationId: session.vendorData, status: 'approved', changed: true })
    expect(await kycOf(t, user)).toEqual({ kyc: true, kycStatus: 'approved' })
    const replay = expectOk(await webhook(body, { 'x-auth-client': API_KEY, 'x-hmac-signature': sign(body) }))
    expect(replay).toEqual({ verificationId: session.vendorData, status: 'approved', changed: false })
    expect((await notificationsOf(t, user)).filter((n) => n.type === 'identity_verified')).toHaveLength(1)
    // A different decision after the first is refused.
    expectError(
      await signedWebhook(decision(session.id, session.vendorData, 'declined')),
      409,
      'VERIFICATION_NOT_OPEN',
    )

    const [mine] = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token })).verifications
    expect(mine).toMatchObject({
      type: 'veriff',
      status: 'approved',
      documentValidFrom: '2020-01-01',
      documentValidUntil: '2030-01-01',
    })
  })

  it('a declined decision with its reason reaches the user', async () => {
    const user = await createUser(t)
    const session = await submittedSession(user)
    const res = await signedWebhook(
      decision(session.id, session.vendorData, 'declined', {
        reason: 'Physical document not used',
        reasonCode: 102,
      }),
    )
    expect(expectOk(res).status).toBe('declined')
    expect(await kycOf(t, user)).toEqual({ kyc: false, kycStatus: 'declined' })
    const notes = (await notificationsOf(t, user)).filter((n) => n.type === 'identity_rejected')
    expect(notes).toHaveLength(1)
    expect(notes[0]!.description).toContain('Physical document not used')
    const [mine] = expectOk(await t.req({ method: 'GET', url: ATTEMPTS, token: user.token })).verifications
    expect(mine).toMatchObject({
      status: 'declined',
      providerReason: 'Physical document not used',
      providerReasonCode: 102,
    })
  })
})
