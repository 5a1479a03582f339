// Google sign-in end to end against a real OpenID provider (oidc-provider on loopback): the
// authorization URL, a new account, linking by verified email, forged, expired and replayed
// states, replayed and swapped codes, an ID token of another client, unverified emails, suspended
// and two-factor accounts, the provider down, the routes unconfigured, and the configuration rules.
import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import {
  CLIENT_ID,
  OTHER_CLIENT_ID,
  OTHER_CLIENT_SECRET,
  REDIRECT_URL,
  startProvider,
  type TestProvider,
} from './oidc-provider.ts'

let op: TestProvider
let t: TestApp
beforeAll(async () => {
  op = await startProvider()
  t = await createTestApp({ env: op.env })
})
afterAll(async () => {
  await t?.close()
  await op?.close()
})

const GENERATE = '/v1/auth/google/oauth/generate-state'
const VALIDATE = '/v1/auth/google/oauth/validate-state'

let people = 0
/** A person at the provider; answers their subject. */
function person(claims: Partial<import('./oidc-provider.ts').Person> = {}) {
  const sub = `person-${++people}-${Date.now()}`
  op.people.set(sub, {
    email: uniqueEmail('google'),
    email_verified: true,
    given_name: 'Ada',
    family_name: 'Lovelace',
    ...claims,
  })
  return sub
}

async function generate(app: TestApp = t) {
  const res = await app.req({ method: 'GET', url: GENERATE })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { googleAuthUrl: string; state: string }
}

const validate = (state: string, code: string, app: TestApp = t) =>
  app.req({ method: 'POST', url: VALIDATE, query: { state, code } })

/** The whole sign-in of `sub`: a new state, the provider's pages, the redirect's code. */
async function redirectOf(sub: string) {
  const { googleAuthUrl, state } = await generate()
  const params = await op.authorize(googleAuthUrl, sub)
  expect(params.get('state')).toBe(state)
  return { state, code: params.get('code')!, googleAuthUrl }
}

async function signIn(sub: string) {
  const { state, code } = await redirectOf(sub)
  return validate(state, code)
}

const usersWithEmail = async (email: string) =>
  t.database.db
    .selectFrom('users')
    .select(['id', 'emailVerified', 'accountType', 'firstName', 'lastName', 'passwordHash'])
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .execute()

const identitiesOf = (userId: string) =>
  t.database.db.selectFrom('oidcIdentities').selectAll().where('userId', '=', userId).execute()

describe('GET /v1/auth/google/oauth/generate-state', () => {
  it('answers the provider’s authorization URL with state, nonce and an S256 PKCE challenge', async () => {
    const res = await t.req({ method: 'GET', url: GENERATE })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: { googleAuthUrl: expect.any(String), state: expect.any(String) },
    })
    const { googleAuthUrl, state } = res.json().data
    const url = new URL(googleAuthUrl)
    expect(`${url.origin}${url.pathname}`).toBe(`${op.issuer}/auth`)
    const q = url.searchParams
    expect(q.get('client_id')).toBe(CLIENT_ID)
    expect(q.get('redirect_uri')).toBe(REDIRECT_URL)
    expect(q.get('response_type')).toBe('code')
    expect(q.get('scope')).toBe('openid email profile')
    expect(q.get('state')).toBe(state)
    expect(q.get('code_challenge_method')).toBe('S256')
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(q.get('nonce')).toMatch(/^[\w-]{20,}$/)
    expect(state).toMatch(/^[\w-]{32,}$/)

    // Only a hash of the state is stored, with the verifier and nonce, for 10 minutes.
    const rows = await t.database.db
      .selectFrom('oidcStates')
      .selectAll()
      .where('stateHash', '=', createHash('sha256').update(state).digest('hex'))
      .execute()
    expect(rows).toHaveLength(1)
    expect(rows[0]!.nonce).toBe(q.get('nonce'))
    expect(rows[0]!.usedAt).toBeNull()
    expect(rows[0]!.expiresAt.getTime() - rows[0]!.createdAt.getTime()).toBe(10 * 60_000)
    const raw = await t.database.db
      .selectFrom('oidcStates')
      .select('stateHash')
      .where('stateHash', '=', state)
      .execute()
    expect(raw).toHaveLength(0)

    // Each call is a new state.
    const again = await generate()
    expect(again.state).not.toBe(state)
  })
})

describe('POST /v1/auth/google/oauth/validate-state', () => {
  it('creates a verified account for a new person and signs it in (type sign_up), then signs in to it', async () => {
    const sub = person({ given_name: 'Grace', family_name: 'Hopper', zoneinfo: 'America/New_York' })
    const email = op.people.get(sub)!.email!
    const res = await signIn(sub)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: 'Signed in with Google',
      data: {
        token: expect.any(String),
        token_type: 'jwt',
        expiresIn: expect.any(Number),
        isVerified: true,
        timeZone: 'America/New_York',
        type: 'sign_up',
      },
    })
    const data = res.json().data
    expect(data.expiresIn - t.clock.now().getTime()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000)
    const me = await t.req({ method: 'GET', url: '/v1/account', token: data.token })
    expect(me.statusCode, me.body).toBe(200)
    expect(me.json().data).toMatchObject({ email, firstName: 'Grace', lastName: 'Hopper' })

    const rows = await usersWithEmail(email)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ emailVerified: true, accountType: 'google', passwordHash: null })
    expect(await identitiesOf(rows[0]!.id)).toEqual([
      expect.objectContaining({ issuer: op.issuer, subject: sub, email }),
    ])

    // No password: password login is refused, as for any wrong password.
    expectError(
      await t.req({ method: 'POST', url: '/v1/auth/login', payload: { email, password: PASSWORD } }),
      401,
      'INVALID_CREDENTIALS',
    )

    // The next sign-in is the same account (type sign_in).
    const again = await signIn(sub)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data.type).toBe('sign_in')
    const me2 = await t.req({ method: 'GET', url: '/v1/account', token: again.json().data.token })
    expect(me2.json().data._id).toBe(me.json().data._id)
    expect(await usersWithEmail(email)).toHaveLength(1)
  })

  it('names a new account from `name` when the provider gives no given/family names, and omits timeZone', async () => {
    const sub = person({ given_name: undefined, family_name: undefined, name: 'Alan Mathison Turing' })
    const res = await signIn(sub)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).not.toHaveProperty('timeZone')
    const me = await t.req({ method: 'GET', url: '/v1/account', token: res.json().data.token })
    expect(me.json().data).toMatchObject({ firstName: 'Alan', lastName: 'Mathison Turing' })
  })

  it('links an existing account with the same verified email (any case) and signs in to it', async () => {
    const user = await createUser(t)
    const sub = person({ email: user.email.toUpperCase() })
    const res = await signIn(sub)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data.type).toBe('sign_in')
    const me = await t.req({ method: 'GET', url: '/v1/account', token: res.json().data.token })
    expect(me.json().data._id).toBe(user.id)
    expect(await usersWithEmail(user.email)).toHaveLength(1)
    expect(await identitiesOf(user.id)).toEqual([expect.objectContaining({ subject: sub })])
    // The password still works.
    const login = await t.req({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: user.email, password: user.password },
    })
    expect(login.statusCode, login.body).toBe(200)
  })

  it('signs in through the link even after the provider’s email changed', async () => {
    const sub = person()
    const first = await signIn(sub)
    expect(first.statusCode, first.body).toBe(200)
    const id = (await t.req({ method: 'GET', url: '/v1/account', token: first.json().data.token })).json()
      .data._id
    op.people.get(sub)!.email = uniqueEmail('renamed')
    const again = await signIn(sub)
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data.type).toBe('sign_in')
    const me = await t.req({ method: 'GET', url: '/v1/account', token: again.json().data.token })
    expect(me.json().data._id).toBe(id)
  })

  it('refuses to link an account that has not verified the email (409 OAUTH_ACCOUNT_NOT_VERIFIED)', async () => {
    const email = uniqueEmail('unverified')
    const reg = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: {
        firstName: 'Eve',
        lastName: 'Squatter',
        email,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    })
    expect(reg.statusCode, reg.body).toBe(202)
    const sub = person({ email })
    expectError(await signIn(sub), 409, 'OAUTH_ACCOUNT_NOT_VERIFIED')
    const rows = await usersWithEmail(email)
    expect(rows).toHaveLength(1)
    expect(rows[0]!.emailVerified).toBe(false)
    expect(await identitiesOf(rows[0]!.id)).toEqual([])
  })

  it('refuses a forged state with 400 OAUTH_STATE_INVALID before asking the provider', async () => {
    const { code } = await redirectOf(person())
    expectError(await validate('forged-state-that-was-never-issued-here', code), 400, 'OAUTH_STATE_INVALID')
    // Neither a state another sign-in used nor an altered one passes.
    const { state } = await generate()
    expectError(await validate(`${state}x`, code), 400, 'OAUTH_STATE_INVALID')
  })

  it('refuses a replayed state with 400 OAUTH_STATE_INVALID', async () => {
    const sub = person()
    const { state, code } = await redirectOf(sub)
    const first = await validate(state, code)
    expect(first.statusCode, first.body).toBe(200)
    expectError(await validate(state, code), 400, 'OAUTH_STATE_INVALID')
  })

  it('lets one of two concurrent presentations of a state through', async () => {
    const { state, code } = await redirectOf(person())
    const answers = await Promise.all([validate(state, code), validate(state, code)])
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 400])
    expectError(answers.find((r) => r.statusCode === 400)!, 400, 'OAUTH_STATE_INVALID')
  })

  it('creates one account when a new person’s first two sign-ins arrive together', async () => {
    const sub = person()
    const email = op.people.get(sub)!.email!
    const a = await redirectOf(sub)
    const b = await redirectOf(sub)
    const answers = await Promise.all([validate(a.state, a.code), validate(b.state, b.code)])
    for (const r of answers) expect(r.statusCode, r.body).toBe(200)
    expect(answers.map((r) => r.json().data.type).sort()).toEqual(['sign_in', 'sign_up'])
    expect(await usersWithEmail(email)).toHaveLength(1)
  })

  it('uses a state up even when the sign-in fails: presented again it is refused', async () => {
    const { state } = await generate()
    expectError(await validate(state, 'not-a-code-the-provider-issued'), 400, 'OAUTH_CODE_REJECTED')
    expectError(await validate(state, 'not-a-code-the-provider-issued'), 400, 'OAUTH_STATE_INVALID')
  })

  it('refuses an expired state (10 minutes) with 400 OAUTH_STATE_INVALID', async () => {
    const { state, code } = await redirectOf(person())
    t.clock.advance(10 * 60_000 + 1000)
    try {
      expectError(await validate(state, code), 400, 'OAUTH_STATE_INVALID')
    } finally {
      t.clock.advance(-(10 * 60_000 + 1000))
    }
  })

  it('answers 400 OAUTH_CODE_REJECTED, never 500, when a used code is replayed with a fresh state', async () => {
    const sub = person()
    const { state, code } = await redirectOf(sub)
    expect((await validate(state, code)).statusCode).toBe(200)
    const fresh = await generate()
    const res = await validate(fresh.state, code)
    expectError(res, 400, 'OAUTH_CODE_REJECTED')
    expect(res.json().data.providerError).toBe('invalid_grant')
  })

  it('refuses a code presented with another sign-in’s state (PKCE binds the code to its state)', async () => {
    const a = await redirectOf(person())
    const b = await redirectOf(person())
    expectError(await validate(a.state, b.code), 400, 'OAUTH_CODE_REJECTED')
    // b's own state was not touched: its code still works with it.
    expect((await validate(b.state, b.code)).statusCode).toBe(200)
  })

  it('refuses an ID token issued to another client of the provider (401 OAUTH_ID_TOKEN_INVALID)', async () => {
    const sub = person()
    const email = op.people.get(sub)!.email!
    const { googleAuthUrl, state } = await generate()
    // The other client's own sign-in of the same person, with the same nonce: its ID token is
    // genuine, signed by the provider, for audience OTHER_CLIENT_ID.
    const nonce = new URL(googleAuthUrl).searchParams.get('nonce')!
    const otherToken = await idTokenOfOtherClient(sub, nonce)
    const [, payload] = otherToken.split('.')
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({
      aud: OTHER_CLIENT_ID,
      nonce,
      iss: op.issuer,
    })

    const params = await op.authorize(googleAuthUrl, sub)
    op.substituteIdToken = otherToken
    expectError(await validate(state, params.get('code')!), 401, 'OAUTH_ID_TOKEN_INVALID')
    expect(op.substituteIdToken).toBeUndefined()
    expect(await usersWithEmail(email)).toHaveLength(0)
  })

  it('refuses an unverified email with 403 OAUTH_EMAIL_NOT_VERIFIED and neither creates nor links', async () => {
    const sub = person({ email_verified: false })
    const email = op.people.get(sub)!.email!
    expectError(await signIn(sub), 403, 'OAUTH_EMAIL_NOT_VERIFIED')
    expect(await usersWithEmail(email)).toHaveLength(0)

    // Not linked to an existing account with that email either.
    const user = await createUser(t)
    const other = person({ email: user.email, email_verified: false })
    expectError(await signIn(other), 403, 'OAUTH_EMAIL_NOT_VERIFIED')
    expect(await identitiesOf(user.id)).toEqual([])

    // No email at all.
    const none = person({ email: undefined, email_verified: undefined })
    expectError(await signIn(none), 403, 'OAUTH_EMAIL_NOT_VERIFIED')
  })

  it('refuses a suspended account with 403 FORBIDDEN', async () => {
    const user = await createUser(t)
    await t.database.db
      .updateTable('users')
      .set({ suspendedAt: new Date(), suspendedReason: 'test' })
      .where('id', '=', user.id)
      .execute()
    expectError(await signIn(person({ email: user.email })), 403, 'FORBIDDEN')
  })

  it('answers the two-factor challenge, not a token, for an account with two-factor on', async () => {
    const user = await createUser(t)
    await t.database.db
      .updateTable('users')
      .set({ twoFaEnabled: true, twoFaType: 'email' })
      .where('id', '=', user.id)
      .execute()
    const res = await signIn(person({ email: user.email }))
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data).toEqual({
      twoFaRequired: true,
      twoFaType: 'email',
      tempToken: { token: expect.any(String), token_type: 'jwt', expiresIn: expect.any(Number) },
    })
    expect(res.json().data).not.toHaveProperty('token')
  })

  it('takes the redirect’s `iss` when it is the issuer, and refuses another issuer’s', async () => {
    const a = await redirectOf(person())
    const other = await t.req({
      method: 'POST',
      url: VALIDATE,
      query: { state: a.state, code: a.code, iss: 'https://elsewhere.example.com' },
    })
    expectError(other, 400, 'OAUTH_CODE_REJECTED')
    const b = await redirectOf(person())
    const res = await t.req({
      method: 'POST',
      url: VALIDATE,
      query: { state: b.state, code: b.code, iss: op.issuer },
    })
    expect(res.statusCode, res.body).toBe(200)
  })

  it('refuses a missing or oversized state or code with 400 VALIDATION_ERROR', async () => {
    expectError(await t.req({ method: 'POST', url: `${VALIDATE}?code=abc` }), 400, 'VALIDATION_ERROR')
    expectError(await t.req({ method: 'POST', url: `${VALIDATE}?state=abc` }), 400, 'VALIDATION_ERROR')
    expectError(await validate('s'.repeat(513), 'abc'), 400, 'VALIDATION_ERROR')
  })
})

/** The authorization code flow of the provider's other client, run by hand; answers its ID token. */
async function idTokenOfOtherClient(sub: string, nonce: string): Promise<string> {
  const verifier = 'v'.repeat(43)
  const challenge = createHash('sha256').update(verifier).digest('base64url')
  const url = new URL(`${op.issuer}/auth`)
  url.search = new URLSearchParams({
    client_id: OTHER_CLIENT_ID,
    redirect_uri: REDIRECT_URL,
    response_type: 'code',
    scope: 'openid email profile',
    state: 'other-client-state',
    nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString()
  const params = await op.authorize(url.toString(), sub)
  const res = await fetch(`${op.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT_URL,
      client_id: OTHER_CLIENT_ID,
      client_secret: OTHER_CLIENT_SECRET,
      code_verifier: verifier,
    }).toString(),
  })
  const body = (await res.json()) as { id_token?: string }
  if (!body.id_token) throw new Error(`no ID token for the other client: ${JSON.stringify(body)}`)
  return body.id_token
}

describe('Google sign-in not configured, or its provider down', () => {
  let bare: TestApp
  let down: TestApp
  beforeAll(async () => {
    bare = await createTestApp({ env: { RATE_LIMIT_AUTH_PER_IP: '4' } })
    // A loopback port nothing listens on: the provider cannot be reached.
    down = await createTestApp({ env: { ...op.env, OIDC_ISSUER_URL: 'http://127.0.0.1:9' } })
  })
  afterAll(async () => {
    await bare?.close()
    await down?.close()
  })

  it('answers 503 UNAVAILABLE naming the variables on both routes when unconfigured', async () => {
    for (const res of [
      await bare.req({ method: 'GET', url: GENERATE }),
      await bare.req({ method: 'POST', url: VALIDATE, query: { state: 'abc', code: 'def' } }),
    ]) {
      expectError(res, 503, 'UNAVAILABLE')
      for (const name of ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_REDIRECT_URL'])
        expect(res.json().message).toContain(name)
    }
  })

  it('limits the routes per IP like the other auth writes (429 RATE_LIMITED)', async () => {
    const answers = []
    for (let i = 0; i < 4; i++) answers.push((await bare.req({ method: 'GET', url: GENERATE })).statusCode)
    expect(answers).toContain(429)
    const res = await bare.req({ method: 'GET', url: GENERATE })
    expectError(res, 429, 'RATE_LIMITED')
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('answers 503 UNAVAILABLE when the provider cannot be reached, and stores no state', async () => {
    const res = await down.req({ method: 'GET', url: GENERATE })
    expectError(res, 503, 'UNAVAILABLE')
    const rows = await down.database.db.selectFrom('oidcStates').select('stateHash').execute()
    expect(rows).toHaveLength(0)
  })
})

describe('Google sign-in configuration', () => {
  const base = { ...TEST_ENV, RESERVES_ATTESTATION_KEY: `0x${'22'.repeat(32)}` }
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env })
    } catch (err) {
      if (err instanceof ConfigError) return err.problems.join('\n')
      throw err
    }
    return ''
  }
  const all = {
    GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
    GOOGLE_CLIENT_SECRET: 'secret',
    GOOGLE_REDIRECT_URL: 'https://app.example.com/auth/google',
  }

  it('is off without the variables, on with all three, and Google’s issuer by default', () => {
    expect(loadConfig(base).google).toBeUndefined()
    expect(loadConfig({ ...base, ...all }).google).toEqual({
      clientId: all.GOOGLE_CLIENT_ID,
      clientSecret: all.GOOGLE_CLIENT_SECRET,
      redirectUrl: all.GOOGLE_REDIRECT_URL,
      issuerUrl: 'https://accounts.google.com',
    })
  })

  it('refuses half of the variables, naming what is set and what is missing', () => {
    const p = problems({ GOOGLE_CLIENT_ID: all.GOOGLE_CLIENT_ID })
    expect(p).toContain('Google sign-in is half configured')
    expect(p).toContain('GOOGLE_CLIENT_SECRET, GOOGLE_REDIRECT_URL missing')
    expect(problems({ OIDC_ISSUER_URL: 'https://issuer.example.com' })).toContain('OIDC_ISSUER_URL is set')
  })

  it('takes an http issuer on loopback outside production only; production wants https everywhere', () => {
    expect(problems({ ...all, OIDC_ISSUER_URL: 'http://127.0.0.1:4000' })).toBe('')
    expect(problems({ ...all, OIDC_ISSUER_URL: 'http://issuer.example.com' })).toContain(
      'OIDC_ISSUER_URL must be an https URL',
    )
    expect(problems({ ...all, GOOGLE_REDIRECT_URL: 'not a url' })).toContain(
      'GOOGLE_REDIRECT_URL must be an absolute URL',
    )
    const prod = problems({ ...all, NODE_ENV: 'production', OIDC_ISSUER_URL: 'http://127.0.0.1:4000' })
    expect(prod).toContain('OIDC_ISSUER_URL must be an https URL when NODE_ENV=production')
    expect(
      problems({ NODE_ENV: 'production', GOOGLE_CLIENT_ID: 'x', GOOGLE_REDIRECT_URL: 'https://a.example' }),
    ).toContain('GOOGLE_CLIENT_SECRET missing')
  })
})
