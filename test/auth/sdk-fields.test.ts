// Sign-up fields as the public SDK sends them (`referral`, `type`), temporary tokens that do not
// tell a real account from an unknown email, tokens without `exp`, and codes that arrive out of
// order.
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectOk } from '../account/helpers.ts'
import { createTestApp, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const post = (url: string, payload: unknown) => t.req({ method: 'POST', url, payload: payload as object })

function payloadOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'))
}

async function register(extra: Record<string, unknown> = {}, email = uniqueEmail('sdk')) {
  return post('/v1/auth/create-account', {
    firstName: 'Grace',
    lastName: 'Hopper',
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    ...extra,
  })
}

async function userIdOf(email: string) {
  const row = await t.database.db
    .selectFrom('users')
    .select(['id', 'referredBy', 'type'])
    .where('email', '=', email.toLowerCase())
    .executeTakeFirstOrThrow()
  return row
}

/** A different 6-digit code. */
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0')

describe('#1 with the SDK’s fields', () => {
  it('takes `referral` as the referral code, alone or equal to `referralCode`', async () => {
    const referrer = await createUser(t)
    const code = expectOk(
      await t.req({ method: 'GET', url: '/v1/account', token: referrer.token }),
    ).referralCode
    const a = uniqueEmail('ref')
    expectOk(await register({ referral: code }, a), 202)
    expect((await userIdOf(a)).referredBy).toBe(referrer.id)
    const b = uniqueEmail('ref')
    expectOk(await register({ referral: code, referralCode: code }, b), 202)
    expect((await userIdOf(b)).referredBy).toBe(referrer.id)
    const me = expectOk(await t.req({ method: 'GET', url: '/v1/account', token: referrer.token }))
    expect(me.achievements).toEqual([expect.objectContaining({ type: 'referral', total: '2' })])
  })

  it('refuses `referral` and `referralCode` that differ, and an unknown `referral`', async () => {
    const referrer = await createUser(t)
    const code = expectOk(
      await t.req({ method: 'GET', url: '/v1/account', token: referrer.token }),
    ).referralCode
    const email = uniqueEmail('ref')
    const both = await register({ referral: code, referralCode: 'ZZZZZZZZ' }, email)
    expectError(both, 400, 'VALIDATION_ERROR')
    expect(both.json().data.errors[0].path).toBe('/referral')
    const unknown = await register({ referral: 'NOSUCHCD' }, email)
    expectError(unknown, 400, 'VALIDATION_ERROR')
    expect(unknown.json().data.errors[0].path).toBe('/referral')
    expectError(await register({ referral: '' }, email), 400, 'VALIDATION_ERROR')
    expectError(await register({ referral: 5 }, email), 400, 'VALIDATION_ERROR')
    // Nothing was created by the refused attempts.
    const rows = await t.database.db.selectFrom('users').select('id').where('email', '=', email).execute()
    expect(rows).toHaveLength(0)
  })

  it('stores `type` (talent or business) and shows it as the User’s `type`', async () => {
    for (const type of ['talent', 'business'] as const) {
      const email = uniqueEmail(type)
      const res = expectOk(await register({ type }, email), 202)
      const verified = expectOk(
        await post('/v1/auth/account/verify', {
          token: await lastCode(t, email),
          tempToken: res.tempToken.token,
        }),
      )
      const me = expectOk(await t.req({ method: 'GET', url: '/v1/account', token: verified.token }))
      expect(me.type).toBe(type)
      expect(me.accountType).toBe('email')
      const viewer = await createUser(t)
      const pub = expectOk(
        await t.req({ method: 'GET', url: `/v1/account/user/${me._id}`, token: viewer.token }),
      )
      expect(pub.type).toBe(type)
    }
    const plain = uniqueEmail('plain')
    expectOk(await register({}, plain), 202)
    expect((await userIdOf(plain)).type).toBe('recipient')
  })

  it.each([['admin'], ['recipient'], [''], [true]])('refuses the type %j', async (type) => {
    expectError(await register({ type }), 400, 'VALIDATION_ERROR')
  })
})

describe('temporary tokens do not reveal whether an email has an account', () => {
  const expectSameShape = (known: string, unknown: string, userId: string) => {
    const k = payloadOf(known)
    const u = payloadOf(unknown)
    expect(Object.keys(k).sort()).toEqual(Object.keys(u).sort())
    for (const p of [k, u]) {
      expect(p.sub).toMatch(/^[0-9a-f]{24}$/)
      expect(p.sub).toBe(p.jti)
      expect(typeof p.exp).toBe('number')
    }
    expect(k.sub).not.toBe(u.sub)
    expect(JSON.stringify(k)).not.toContain(userId)
    expect(k.purpose).toBe(u.purpose)
  }

  it('#3: an unverified account and an unknown email get tokens of the same shape', async () => {
    const email = uniqueEmail('unverified')
    expectOk(await register({}, email), 202)
    const { id } = await userIdOf(email)
    const known = expectOk(await post('/v1/auth/verify/resend', { email })).tempToken.token
    const unknown = expectOk(await post('/v1/auth/verify/resend', { email: uniqueEmail('ghost') })).tempToken
      .token
    expectSameShape(known, unknown, id)
    // The token of #1 does not name the account either.
    const first = expectOk(await register({}, uniqueEmail('new')), 202).tempToken.token
    expect(Object.keys(payloadOf(first)).sort()).toEqual(Object.keys(payloadOf(known)).sort())
  })

  it('#7: an account and an unknown email get tokens of the same shape', async () => {
    const user = await createUser(t)
    const known = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
    const unknown = expectOk(await post('/v1/auth/password/reset', { email: uniqueEmail('ghost') })).tempToken
      .token
    expectSameShape(known, unknown, user.id)
  })

  it('#4/#6: the two-factor login token does not name the account', async () => {
    const user = await createUser(t)
    expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/account/initiate/2fa',
        token: user.token,
        payload: { type: 'email' },
      }),
      202,
    )
    expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/account/activate/2fa',
        token: user.token,
        payload: { code: await lastCode(t, user.email) },
      }),
    )
    const challenge = expectOk(await post('/v1/auth/login', { email: user.email, password: user.password }))
    const p = payloadOf(challenge.tempToken.token)
    expect(p.sub).toBe(p.jti)
    expect(JSON.stringify(p)).not.toContain(user.id)
    expectOk(await post('/v1/auth/2fa/email/code', { email: user.email }))
  })
})

describe('tokens without `exp`', () => {
  const key = new TextEncoder().encode(TEST_ENV.JWT_SECRET)
  const resign = (claims: Record<string, unknown>, withExp: boolean) => {
    const { exp, iat, iss, sub, jti, ...rest } = claims
    let jwt = new SignJWT(rest)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(iss as string)
      .setSubject(sub as string)
      .setJti(jti as string)
      .setIssuedAt(iat as number)
    if (withExp) jwt = jwt.setExpirationTime(exp as number)
    return jwt.sign(key)
  }

  it('refuses a permanent token signed with the right secret but without `exp`', async () => {
    const user = await createUser(t)
    const claims = payloadOf(user.token)
    const control = await resign(claims, true)
    expectOk(await t.req({ method: 'GET', url: '/v1/account', token: control }))
    const noExp = await resign(claims, false)
    expect(payloadOf(noExp).exp).toBeUndefined()
    expectError(await t.req({ method: 'GET', url: '/v1/account', token: noExp }), 401, 'UNAUTHENTICATED')
  })

  it('refuses a temporary token without `exp`', async () => {
    const email = uniqueEmail('noexp')
    const tempToken = expectOk(await register({}, email), 202).tempToken.token
    const code = await lastCode(t, email)
    const claims = payloadOf(tempToken)
    expectError(
      await post('/v1/auth/account/verify', { token: code, tempToken: await resign(claims, false) }),
      401,
      'UNAUTHENTICATED',
    )
    // The same claims with their `exp` work: only the missing expiry was refused.
    expectOk(await post('/v1/auth/account/verify', { token: code, tempToken: await resign(claims, true) }))
  })
})

describe('codes arrive in order (earlier codes stay valid until they expire)', () => {
  it('#3: the code of the first mail works with the token of the resend, once', async () => {
    const email = uniqueEmail('late')
    const first = expectOk(await register({}, email), 202).tempToken.token
    const a = await lastCode(t, email)
    const second = expectOk(await post('/v1/auth/verify/resend', { email })).tempToken.token
    const b = await lastCode(t, email)
    // The token the resend replaced is ended.
    expectError(await post('/v1/auth/account/verify', { token: b, tempToken: first }), 400, 'INVALID_CODE')
    const done = expectOk(await post('/v1/auth/account/verify', { token: a, tempToken: second }))
    expect(done.isVerified).toBe(true)
    // Any code uses the flow up.
    expectError(await post('/v1/auth/account/verify', { token: b, tempToken: second }), 400, 'INVALID_CODE')
  })

  it('#7: the last three codes are valid; an older one is not', async () => {
    const user = await createUser(t)
    const codes: string[] = []
    let tempToken = ''
    for (let i = 0; i < 4; i++) {
      tempToken = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
      codes.push(await lastCode(t, user.email))
    }
    const [oldest, ...recent] = codes as [string, string, string, string]
    if (!recent.includes(oldest))
      expectError(await post('/v1/auth/validate/password', { token: oldest, tempToken }), 400, 'INVALID_CODE')
    for (const code of recent) expectOk(await post('/v1/auth/validate/password', { token: code, tempToken }))
    const change = await post('/v1/auth/password/change', {
      token: recent[0],
      tempToken,
      password: 'N3w-passw0rd!',
    })
    expect(change.statusCode, change.body).toBe(200)
    expectOk(await post('/v1/auth/login', { email: user.email, password: 'N3w-passw0rd!' }))
  })

  it('#7: a code whose own 15 minutes have passed is refused, the newer one still works', async () => {
    const user = await createUser(t)
    expectOk(await post('/v1/auth/password/reset', { email: user.email }))
    const early = await lastCode(t, user.email)
    t.clock.advance(10 * 60_000)
    const tempToken = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
    const late = await lastCode(t, user.email)
    expectOk(await post('/v1/auth/validate/password', { token: early, tempToken }))
    t.clock.advance(6 * 60_000)
    if (early !== late)
      expectError(await post('/v1/auth/validate/password', { token: early, tempToken }), 400, 'INVALID_CODE')
    expectOk(await post('/v1/auth/validate/password', { token: late, tempToken }))
  })

  it('a resend does not reset the wrong-attempt count', async () => {
    const user = await createUser(t)
    const first = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
    const a = await lastCode(t, user.email)
    for (let i = 0; i < 4; i++)
      expectError(
        await post('/v1/auth/validate/password', { token: wrong(a), tempToken: first }),
        400,
        'INVALID_CODE',
      )
    const second = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
    const b = await lastCode(t, user.email)
    const bad = [a, b].includes(wrong(wrong(a))) ? wrong(wrong(wrong(a))) : wrong(wrong(a))
    expectError(
      await post('/v1/auth/validate/password', { token: bad, tempToken: second }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    expectError(
      await post('/v1/auth/validate/password', { token: b, tempToken: second }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    // A flow killed by wrong codes passes nothing on: the next request starts afresh.
    const third = expectOk(await post('/v1/auth/password/reset', { email: user.email })).tempToken.token
    const c = await lastCode(t, user.email)
    if (c !== a && c !== b)
      expectError(
        await post('/v1/auth/validate/password', { token: b, tempToken: third }),
        400,
        'INVALID_CODE',
      )
    expectOk(await post('/v1/auth/validate/password', { token: c, tempToken: third }))
  })

  it('#6: both the first and the re-sent login code work; the first one used ends the login', async () => {
    const user = await createUser(t)
    expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/account/initiate/2fa',
        token: user.token,
        payload: { type: 'email' },
      }),
      202,
    )
    expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/account/activate/2fa',
        token: user.token,
        payload: { code: await lastCode(t, user.email) },
      }),
    )
    const challenge = expectOk(await post('/v1/auth/login', { email: user.email, password: user.password }))
    const first = await lastCode(t, user.email)
    expectOk(await post('/v1/auth/2fa/email/code', { email: user.email }))
    const second = await lastCode(t, user.email)
    const done = expectOk(
      await post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: second }),
    )
    expect(done.token).toEqual(expect.any(String))
    expectError(
      await post('/v1/auth/login/2fa', { tempToken: challenge.tempToken.token, code: first }),
      400,
      'INVALID_CODE',
    )
  })
})
