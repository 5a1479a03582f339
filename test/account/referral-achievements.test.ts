// The referral achievement a referrer earns for each sign-up with their code, and sign-up with an
// unknown code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { api, expectError, expectOk, ISO, signUp, word } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
})
afterAll(() => t.close())

describe('referral achievements', () => {
  it('gives the referrer a referral achievement counting each sign-up with the code', async () => {
    const referrer = await createUser(t)
    const me = expectOk(await a.get('/v1/account', referrer.token))
    await signUp(t, { referralCode: me.referralCode })
    let data = expectOk(await a.get('/v1/account', referrer.token))
    expect(data.achievements).toEqual([
      {
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        owner: referrer.id,
        type: 'referral',
        total: '1',
        value: '10',
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
        __v: 0,
      },
    ])
    await signUp(t, { referralCode: me.referralCode, verify: false })
    data = expectOk(await a.get('/v1/account', referrer.token))
    expect(data.achievements).toHaveLength(1)
    expect(data.achievements[0]).toMatchObject({ type: 'referral', total: '2', value: '20', __v: 1 })
    const viewer = await createUser(t)
    const pub = expectOk(await a.get(`/v1/account/user/${referrer.id}`, viewer.token))
    expect(pub.achievements).toEqual(data.achievements)
  })

  it('refuses an unknown referral code without creating anything', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: {
        firstName: 'A',
        lastName: 'B',
        email: `${word()}@example.com`,
        password: 'Str0ng!pass',
        confirmPassword: 'Str0ng!pass',
        referralCode: 'NOPE0000',
      },
    })
    expectError(res, 400, 'VALIDATION_ERROR')
  })
})
