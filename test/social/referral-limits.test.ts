// The limits of referrals: a code used REFERRAL_LIMIT times is refused at sign-up and reported
// invalid, and invitations by e-mail (one mail per address and day, none to an existing account,
// REFERRAL_INVITES_PER_DAY addresses per 24 hours) as the outbox receives them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectError, expectOk } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, PASSWORD, type TestUser, uniqueEmail } from '../helpers/factories.ts'

let t: TestApp
let ann: TestUser
let ben: TestUser
let code: string
beforeAll(async () => {
  t = await createTestApp({ env: { REFERRAL_LIMIT: '2', REFERRAL_INVITES_PER_DAY: '3' } })
  ann = await createUser(t, { firstName: 'Ann', lastName: 'Inviter' })
  ben = await createUser(t, { firstName: 'Ben' })
  code = (await t.req({ method: 'GET', url: '/v1/account', token: ann.token })).json().data.referralCode
})
afterAll(() => t.close())

const register = (referralCode: string) =>
  t.req({
    method: 'POST',
    url: '/v1/auth/create-account',
    payload: {
      firstName: 'New',
      lastName: 'Comer',
      email: uniqueEmail('limit'),
      password: PASSWORD,
      confirmPassword: PASSWORD,
      referralCode,
    },
  })
const validate = (token: string) =>
  t.req({ method: 'POST', url: '/v1/auth/referral/validate/', payload: { token } })
const invite = (emails: string[], token = ann.token) =>
  t.req({ method: 'POST', url: '/v1/referrals/invite', payload: { emails }, ...(token ? { token } : {}) })
const mailsTo = async (email: string) => {
  await t.drain()
  return t.database.db
    .selectFrom('mails')
    .selectAll()
    .where('toAddress', '=', email.toLowerCase())
    .where('kind', '=', 'referral_invite')
    .execute()
}

describe('REFERRAL_LIMIT', () => {
  it('counts sign-ups (verified or not) and refuses the code once used up', async () => {
    expect((await register(code)).statusCode).toBe(202)
    expect(expectOk(await validate(code))).toMatchObject({
      valid: true,
      referralCounts: 1,
      totalAllowedReferrals: 2,
    })
    expect((await register(code.toLowerCase())).statusCode).toBe(202)
    expect(expectOk(await validate(code))).toMatchObject({ valid: false, referralCounts: 2 })
    const res = await register(code)
    expectError(res, 422, 'REFERRAL_CODE_USED_UP')
    expect(res.json().data.errors).toEqual([{ path: '/referralCode', message: 'used up' }])
    const stats = expectOk(await t.req({ method: 'GET', url: '/v1/referrals/stats', token: ann.token }))
    expect(stats).toMatchObject({
      totalReferrals: 2,
      verifiedReferrals: 0,
      remainingReferrals: 0,
      points: 20,
    })
    // unverified accounts are listed too, marked so
    const list = expectOk(await t.req({ method: 'GET', url: '/v1/referrals', token: ann.token }))
    expect(list.total).toBe(2)
    expect(list.data.every((u: any) => u.isVerified === false)).toBe(true)
  })
})

describe('POST /v1/referrals/invite', () => {
  const friend = uniqueEmail('friend')

  it('mails each new address the inviter’s code, once a day; an account holder gets nothing, and the answer is the same', async () => {
    const res = await invite([friend.toUpperCase(), friend, ben.email])
    const data = expectOk(res)
    expect(data).toEqual({ emails: [friend, ben.email], referralCode: code })
    const [mail] = await mailsTo(friend)
    expect(mail).toMatchObject({ subject: 'Ann Inviter invites you to WorkPay' })
    expect(mail!.text).toContain(code)
    expect(await mailsTo(ben.email)).toEqual([])
    // again within 24 hours: no second mail, no error
    expect(expectOk(await invite([friend]))).toEqual({ emails: [friend], referralCode: code })
    expect(await mailsTo(friend)).toHaveLength(1)
    expect(
      expectOk(await t.req({ method: 'GET', url: '/v1/referrals/stats', token: ann.token })).invitesSent,
    ).toBe(2)
  })

  it('allows REFERRAL_INVITES_PER_DAY addresses per 24 hours', async () => {
    const third = uniqueEmail('third')
    expectOk(await invite([third]))
    expectError(await invite([uniqueEmail('fourth')]), 422, 'REFERRAL_INVITES_EXHAUSTED')
    // addresses already invited today do not count again
    expectOk(await invite([friend, third]))
    t.clock.advance(24 * 3600 * 1000 + 1000)
    expectOk(await invite([friend, uniqueEmail('fifth')]))
    expect(await mailsTo(friend)).toHaveLength(2)
  })

  it('refuses the inviter’s own address, bad lists and no token', async () => {
    expectError(await invite([ann.email.toUpperCase()]), 400, 'VALIDATION_ERROR')
    expectError(await invite([]), 400, 'VALIDATION_ERROR')
    expectError(await invite(['not-an-email']), 400, 'VALIDATION_ERROR')
    expectError(
      await invite(Array.from({ length: 11 }, (_, i) => `x${i}@example.com`)),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await invite([uniqueEmail()], ''), 401, 'UNAUTHENTICATED')
    expectError(
      await t.req({
        method: 'POST',
        url: '/v1/referrals/invite',
        token: ann.token,
        payload: { emails: [uniqueEmail()], note: 'hi' },
      }),
      400,
      'VALIDATION_ERROR',
    )
  })
})
