// `sdk.auth` against the real service over a socket: sign-up, verification, login with and without
// two-factor, and the password reset flow (#1–#9).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastCode, mailCount, PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import {
  call,
  expectError,
  expectOk,
  expectShape,
  type SdkContext,
  type SdkUser,
  signUp,
  startSdk,
  wrongCode,
} from './helpers.ts'
import {
  AccountVerifyDto,
  FullUser,
  LoginData,
  LoginTwoFaDto,
  RegisterDto,
  TempTokenData,
  TwoFaChallenge,
} from './shapes.ts'

let ctx: SdkContext
beforeAll(async () => {
  ctx = await startSdk()
})
afterAll(() => ctx?.t.close())

const register = (email: string, extra: Record<string, unknown> = {}) =>
  ctx.sdk.auth.register({
    firstName: 'Grace',
    lastName: 'Hopper',
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    ...extra,
  })

/** Turns email two-factor on for `u` (initiate through fetch: the SDK's initate2FA posts elsewhere). */
async function enableEmailTwoFa(u: SdkUser) {
  expectOk(
    await call(ctx, 'POST', '/v1/account/initiate/2fa', { token: u.token, body: { type: 'email' } }),
    202,
  )
  expectOk(await ctx.sdk.account.activate2FA(await lastCode(ctx.t, u.email), u.token))
}

describe('auth.register (#1)', () => {
  it('creates an unverified account and mails a code; the SDK answers the tempToken fields', async () => {
    const email = uniqueEmail('reg')
    const res = await register(email)
    const data = expectOk(res, 202)
    expectShape(RegisterDto, data, 'register data')
    expect(data.expiresIn).toBeGreaterThan(Date.now())
    expect(await mailCount(ctx.t, email)).toBe(1)
    // not usable before verification
    expectError(await ctx.sdk.auth.login({ email, password: PASSWORD }), 403, 'EMAIL_NOT_VERIFIED')
  })

  it('refuses mismatched and weak passwords, a taken email and a malformed one', async () => {
    const email = uniqueEmail('reg')
    expectError(
      await ctx.sdk.auth.register({
        firstName: 'A',
        lastName: 'B',
        email,
        password: PASSWORD,
        confirmPassword: `${PASSWORD}x`,
      }),
      400,
      'PASSWORD_MISMATCH',
    )
    expectError(
      await ctx.sdk.auth.register({
        firstName: 'A',
        lastName: 'B',
        email,
        password: 'short',
        confirmPassword: 'short',
      }),
      400,
      'WEAK_PASSWORD',
    )
    expectError(await register('not-an-email'), 400, 'VALIDATION_ERROR')
    expectOk(await register(email), 202)
    expectError(await register(email.toUpperCase()), 409, 'CONFLICT')
  })

  it('accepts the SDK’s `referral` (the referrer’s code) and `type`', async () => {
    const referrer = await signUp(ctx)
    const code = expectOk(await ctx.sdk.account.getUser(referrer.token)).referralCode as string
    const email = uniqueEmail('referred')
    const reg = await register(email, { referral: code, type: 'talent' })
    const data = expectOk(reg, 202)
    const ver = expectOk(
      await ctx.sdk.auth.verifyAccount({ tempToken: data.token, token: await lastCode(ctx.t, email) }),
    )
    const me = expectOk(await ctx.sdk.account.getUser(ver.token))
    expect(me.type).toBe('talent')
    const referred = expectOk(await ctx.sdk.account.getUsers(referrer.token, { owner: true }))
    expect(referred.data.map((u: { _id: string }) => u._id)).toEqual([me._id])
    // an unknown referral code is refused, not silently dropped
    const bad = await register(uniqueEmail('referred'), { referral: 'NO-SUCH-CODE' })
    expect(bad.code, JSON.stringify(bad)).toBeGreaterThanOrEqual(400)
    expect(bad.code).toBeLessThan(500)
    expect(bad.status).toBe('error')
  })
})

describe('auth.verifyAccount (#2)', () => {
  it('answers the permanent token for the mailed code, once', async () => {
    const email = uniqueEmail('verify')
    const reg = expectOk(await register(email), 202)
    const code = await lastCode(ctx.t, email)
    expectError(
      await ctx.sdk.auth.verifyAccount({ tempToken: reg.token, token: wrongCode(code) }),
      400,
      'INVALID_CODE',
    )
    expectError(
      await ctx.sdk.auth.verifyAccount({ tempToken: 'not-a-jwt-at-all', token: code }),
      401,
      'UNAUTHENTICATED',
    )
    expectError(
      await ctx.sdk.auth.verifyAccount({ tempToken: reg.token, token: '12ab' }),
      400,
      'VALIDATION_ERROR',
    )
    const res = await ctx.sdk.auth.verifyAccount({ tempToken: reg.token, token: code })
    const data = expectOk(res)
    expectShape(AccountVerifyDto, data, 'verify data')
    expect(data.isVerified).toBe(true)
    expect(data.code).toBe(data.token)
    const me = expectOk(await ctx.sdk.account.getUser(data.token))
    expectShape(FullUser, me, 'the verified user')
    expect(me).toMatchObject({ email, isVerified: true, emailVerified: true })
    // the code is single use
    expectError(await ctx.sdk.auth.verifyAccount({ tempToken: reg.token, token: code }), 400, 'INVALID_CODE')
  })
})

describe('auth.resendVerifyLink (#3)', () => {
  it('mails a new code with a new tempToken; an unknown email gets the same answer and no mail', async () => {
    const email = uniqueEmail('resend')
    expectOk(await register(email), 202)
    const res = await ctx.sdk.auth.resendVerifyLink({ email })
    const data = expectOk(res)
    expectShape(TempTokenData, data, 'resend data')
    expect(await mailCount(ctx.t, email)).toBe(2)
    const code = await lastCode(ctx.t, email)
    expectOk(await ctx.sdk.auth.verifyAccount({ tempToken: data.tempToken.token, token: code }))

    const ghost = uniqueEmail('ghost')
    const other = expectOk(await ctx.sdk.auth.resendVerifyLink({ email: ghost }))
    expectShape(TempTokenData, other, 'resend data for an unknown email')
    expect(await mailCount(ctx.t, ghost)).toBe(0)
    expectError(await ctx.sdk.auth.resendVerifyLink({ email: 'nope' }), 400, 'VALIDATION_ERROR')
  })
})

describe('auth.login (#4)', () => {
  it('answers the permanent token; wrong passwords and unknown emails are 401', async () => {
    const u = await signUp(ctx)
    const res = await ctx.sdk.auth.login({ email: u.email, password: u.password })
    const data = expectOk(res)
    expectShape(LoginData, data, 'login data')
    expect(data.isVerified).toBe(true)
    expect(data.expiresIn).toBeGreaterThan(Date.now() + 365 * 86_400_000)
    expect(expectOk(await ctx.sdk.account.getUser(data.token))._id).toBe(u.id)
    expectError(
      await ctx.sdk.auth.login({ email: u.email, password: 'Wrong!pass1' }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(
      await ctx.sdk.auth.login({ email: uniqueEmail('nobody'), password: PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(await ctx.sdk.auth.login({ email: u.email } as never), 400, 'VALIDATION_ERROR')
  })
})

describe('auth.loginTwoFa (#5)', () => {
  it('finishes a two-factor login with the mailed code and answers the full user with the token', async () => {
    const u = await signUp(ctx)
    await enableEmailTwoFa(u)
    const challenge = expectOk(await ctx.sdk.auth.login({ email: u.email, password: u.password }))
    expectShape(TwoFaChallenge, challenge, 'two-factor challenge')
    expect(challenge.twoFaType).toBe('email')
    expect(challenge).not.toHaveProperty('token')
    const code = await lastCode(ctx.t, u.email)
    const tempToken = challenge.tempToken.token as string

    expectError(await ctx.sdk.auth.loginTwoFa({ tempToken, code: wrongCode(code) }), 400, 'INVALID_CODE')
    // a tempToken of another flow is refused
    const reg = expectOk(await register(uniqueEmail('other')), 202)
    expectError(await ctx.sdk.auth.loginTwoFa({ tempToken: reg.token, code }), 401, 'UNAUTHENTICATED')

    const res = await ctx.sdk.auth.loginTwoFa({ tempToken, code })
    const data = expectOk(res)
    expectShape(LoginTwoFaDto, data, 'two-factor login data')
    expect(data).toMatchObject({ _id: u.id, email: u.email, isVerified: true, status: true })
    expect(data.twoFa).toMatchObject({ status: true, type: 'email' })
    expect(expectOk(await ctx.sdk.account.getUser(data.token))._id).toBe(u.id)
    // the code and the tempToken are used up
    expect((await ctx.sdk.auth.loginTwoFa({ tempToken, code })).code).toBeGreaterThanOrEqual(400)
  })
})

describe('auth.resendTwoFAEmailCode (#6)', () => {
  it('mails a new login code during a two-factor login; any email gets the same empty answer', async () => {
    const u = await signUp(ctx)
    await enableEmailTwoFa(u)
    const challenge = expectOk(await ctx.sdk.auth.login({ email: u.email, password: u.password }))
    const before = await mailCount(ctx.t, u.email)
    const res = await ctx.sdk.auth.resendTwoFAEmailCode(u.email)
    expect(expectOk(res)).toEqual({})
    expect(await mailCount(ctx.t, u.email)).toBe(before + 1)
    const code = await lastCode(ctx.t, u.email)
    expectOk(await ctx.sdk.auth.loginTwoFa({ tempToken: challenge.tempToken.token, code }))

    const ghost = uniqueEmail('ghost')
    expect(expectOk(await ctx.sdk.auth.resendTwoFAEmailCode(ghost))).toEqual({})
    expect(await mailCount(ctx.t, ghost)).toBe(0)
    expectError(await ctx.sdk.auth.resendTwoFAEmailCode('nope'), 400, 'VALIDATION_ERROR')
  })
})

describe('password reset: auth.resetPassword (#7), validatePasswordToken (#8), changePassword (#9)', () => {
  let u: SdkUser
  let tempToken: string
  let code: string
  const NEW_PASSWORD = 'N3w!password'

  beforeAll(async () => {
    u = await signUp(ctx)
  })

  it('auth.resetPassword mails a code with a tempToken; an unknown email gets the same answer', async () => {
    const res = await ctx.sdk.auth.resetPassword({ email: u.email })
    const data = expectOk(res)
    expectShape(TempTokenData, data, 'reset data')
    tempToken = data.tempToken.token
    code = await lastCode(ctx.t, u.email)
    const ghost = uniqueEmail('ghost')
    expectShape(TempTokenData, expectOk(await ctx.sdk.auth.resetPassword({ email: ghost })), 'reset data')
    expect(await mailCount(ctx.t, ghost)).toBe(0)
    expectError(await ctx.sdk.auth.resetPassword({ email: '' }), 400, 'VALIDATION_ERROR')
  })

  it('auth.validatePasswordToken checks the code without using it', async () => {
    expectError(
      await ctx.sdk.auth.validatePasswordToken({ tempToken, token: wrongCode(code) }),
      400,
      'INVALID_CODE',
    )
    const res = await ctx.sdk.auth.validatePasswordToken({ tempToken, token: code })
    expect(expectOk(res)).toBeNull()
    // still valid: it was only checked
    expect(expectOk(await ctx.sdk.auth.validatePasswordToken({ tempToken, token: code }))).toBeNull()
    const reg = expectOk(await register(uniqueEmail('other')), 202)
    expectError(
      await ctx.sdk.auth.validatePasswordToken({ tempToken: reg.token, token: code }),
      401,
      'UNAUTHENTICATED',
    )
  })

  it('auth.changePassword sets the new password and revokes every session', async () => {
    expectError(
      await ctx.sdk.auth.changePassword({ tempToken, token: code, password: 'weak' }),
      400,
      'WEAK_PASSWORD',
    )
    const res = await ctx.sdk.auth.changePassword({ tempToken, token: code, password: NEW_PASSWORD })
    expect(expectOk(res)).toEqual({})
    expectError(await ctx.sdk.account.getUser(u.token), 401, 'UNAUTHENTICATED')
    expectError(
      await ctx.sdk.auth.login({ email: u.email, password: u.password }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectOk(await ctx.sdk.auth.login({ email: u.email, password: NEW_PASSWORD }))
    // the code is used up
    expectError(
      await ctx.sdk.auth.changePassword({ tempToken, token: code, password: 'An0ther!pass' }),
      400,
      'INVALID_CODE',
    )
  })
})
