// Referrals end to end, with the client SDK where it has the call: a code validated before
// sign-up, sign-ups with it (the referrer's list, stats, achievement, notification and private
// feed entry, written with the sign-up), and a referred account's first completed job on the dev
// chain (one notification and feed entry, once).
import { describe, expect, it } from 'vitest'
import { ReferralStats, ReferredPage, ValidateReferral } from '../../src/modules/referrals/schemas.ts'
import { lastCode, PASSWORD, uniqueEmail } from '../helpers/factories.ts'
import { expectError, expectOk, expectShape } from '../sdk/helpers.ts'
import { workScene } from '../work/helpers.ts'

const W = workScene()
const s = W.scene
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

const codeOf = async (token: string) =>
  (await s.t.req({ method: 'GET', url: '/v1/account', token })).json().data.referralCode as string

/** Signs up through the SDK with `referral` and verifies; the new account's id and token. */
async function signUpWith(referral: string, firstName = 'Rae') {
  const email = uniqueEmail('ref')
  const reg = await s.ctx.sdk.auth.register({
    firstName,
    lastName: 'Referred',
    email,
    password: PASSWORD,
    confirmPassword: PASSWORD,
    referral,
  } as never)
  expectOk(reg, 202)
  const ver = expectOk(
    await s.ctx.sdk.auth.verifyAccount({ tempToken: reg.data.token, token: await lastCode(s.t, email) }),
  )
  const me = (await s.t.req({ method: 'GET', url: '/v1/account', token: ver.token })).json().data
  return { id: me._id as string, email, token: ver.token as string, password: PASSWORD }
}

const get = (url: string, token?: string) =>
  s.t
    .req({ method: 'GET', url, ...(token ? { token } : {}) })
    .then((r) => ({ ...r.json(), code: r.statusCode }))

describe('auth.validateReferral', () => {
  it('answers the SDK’s ValidateReferralDto for a code, in any case, without a token', async () => {
    const code = await codeOf(s.other.token)
    const data = expectOk(await s.ctx.sdk.auth.validateReferral(code.toLowerCase()))
    expectShape(ValidateReferral, data)
    expect(data).toEqual({
      valid: true,
      userId: s.other.id,
      referralCounts: 0,
      totalAllowedReferrals: 100,
      referralId: code,
      role: 'user',
      isKyc: false,
    })
  })

  it('refuses an unknown code with 404 and a bad body with 400', async () => {
    expectError(await s.ctx.sdk.auth.validateReferral('NOSUCHCODE'), 404, 'NOT_FOUND')
    expectError(await s.ctx.sdk.auth.validateReferral(''), 400, 'VALIDATION_ERROR')
    expectError(await s.ctx.sdk.auth.validateReferral('X'.repeat(33)), 400, 'VALIDATION_ERROR')
  })
})

describe('signing up with a code', () => {
  let referred: { id: string; token: string }

  it('links the account, counts it, and tells the referrer (notification and private feed entry)', async () => {
    const code = await codeOf(s.other.token)
    referred = await signUpWith(code)
    expect(expectOk(await s.ctx.sdk.auth.validateReferral(code))).toMatchObject({
      valid: true,
      referralCounts: 1,
    })

    const list = expectOk(await get('/v1/referrals', s.other.token))
    expectShape(ReferredPage, list)
    expect(list).toEqual({
      data: [
        {
          _id: referred.id,
          firstName: 'Rae',
          lastName: 'Referred',
          userName: expect.any(String),
          type: 'recipient',
          isVerified: true,
          completedJob: false,
          firstJob: null,
          firstJobCompletedAt: null,
          createdAt: ISO,
        },
      ],
      total: 1,
      pages: 1,
      page: 1,
      limit: 12,
    })
    const stats = expectOk(await get('/v1/referrals/stats', s.other.token))
    expectShape(ReferralStats, stats)
    expect(stats).toEqual({
      referralCode: code,
      totalReferrals: 1,
      verifiedReferrals: 1,
      completedJobReferrals: 0,
      totalAllowedReferrals: 100,
      remainingReferrals: 99,
      invitesSent: 0,
      points: 10,
    })

    const notes = expectOk(await s.ctx.sdk.notifications.getAll(s.other.token, { type: 'referral_signup' }))
    expect(notes.notification).toHaveLength(1)
    expect(notes.notification[0]).toMatchObject({ type: 'referral_signup', data: referred.id, read: false })
    expect(notes.notification[0].notifyUser).toMatchObject({ _id: referred.id })

    const feed = expectOk(await s.ctx.sdk.feed.getAll(s.other.token, { type: 'referral_signup' }))
    expect(feed.data).toHaveLength(1)
    expect(feed.data[0]).toMatchObject({
      type: 'referral_signup',
      creator: referred.id,
      owners: [s.other.id],
      data: referred.id,
      isPublic: false,
    })
    // a private entry: nobody else sees it
    const entry = feed.data[0]._id
    expectError(await s.ctx.sdk.feed.getById(s.stranger.token, entry), 404, 'NOT_FOUND')
    expect(expectOk(await s.ctx.sdk.feed.getAll(s.stranger.token, { type: 'referral_signup' })).data).toEqual(
      [],
    )
  })

  it('a sign-up that fails writes no referral event', async () => {
    const code = await codeOf(s.other.token)
    const count = () =>
      s.t.database.db.selectFrom('events').select('id').where('type', '=', 'referral.signup').execute()
    const before = (await count()).length
    const res = await s.t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: {
        firstName: 'Dup',
        lastName: 'Licate',
        email: s.talent.email,
        password: PASSWORD,
        confirmPassword: PASSWORD,
        referral: code,
      },
    })
    expect(res.statusCode, res.body).toBe(409)
    expect((await count()).length).toBe(before)
    expect(expectOk(await get('/v1/referrals/stats', s.other.token)).totalReferrals).toBe(1)
  })

  it('an unknown code is 400 at the field the client used', async () => {
    const res = await s.t.req({
      method: 'POST',
      url: '/v1/auth/create-account',
      payload: {
        firstName: 'No',
        lastName: 'Code',
        email: uniqueEmail('nocode'),
        password: PASSWORD,
        confirmPassword: PASSWORD,
        referral: 'NOSUCHCODE',
      },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().data).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: '/referral' }] })
  })

  it('each referrer sees only their own referrals', async () => {
    expect(expectOk(await get('/v1/referrals', s.stranger.token))).toEqual({
      data: [],
      total: 0,
      pages: 0,
      page: 1,
      limit: 12,
    })
    expect(expectOk(await get('/v1/referrals/stats', s.stranger.token))).toMatchObject({
      totalReferrals: 0,
      points: 0,
    })
    expectError(await get('/v1/referrals'), 401, 'UNAUTHENTICATED')
    expectError(await get('/v1/referrals/stats'), 401, 'UNAUTHENTICATED')
  })

  it('pages newest first', async () => {
    const code = await codeOf(s.other.token)
    s.t.clock.advance(1000)
    const second = await signUpWith(code, 'Sid')
    const p1 = expectOk(await get('/v1/referrals/?limit=1', s.other.token))
    expect(p1).toMatchObject({ total: 2, pages: 2, page: 1, limit: 1 })
    expect(p1.data.map((u: any) => u._id)).toEqual([second.id])
    const p2 = expectOk(await get('/v1/referrals?limit=1&page=2', s.other.token))
    expect(p2.data.map((u: any) => u._id)).toEqual([referred.id])
    for (const q of ['limit=0', 'limit=101', 'page=0', 'type=x'])
      expectError(await get(`/v1/referrals?${q}`, s.other.token), 400, 'VALIDATION_ERROR')
  })

  it('a referred account’s first completed job tells the referrer once', async () => {
    const { id } = await W.ongoingJob({}, { ...referred, email: '', password: PASSWORD })
    const talent = { token: referred.token }
    expectOk(await s.ctx.sdk.collection.updateCollection(talent.token, id, { status: 'completed' } as never))
    expectOk(
      await s.ctx.sdk.collection.updateCollection(s.creator.token, id, {
        name: 'Landing page',
        description: 'One responsive page',
        status: 'completed',
      }),
    )
    await W.settle()
    expect((await W.job(id)).status).toBe('completed')

    const notes = expectOk(
      await s.ctx.sdk.notifications.getAll(s.other.token, { type: 'referral_job_completed' }),
    )
    expect(notes.notification).toHaveLength(1)
    expect(notes.notification[0]).toMatchObject({ data: referred.id, notifyUser: { _id: referred.id } })
    const feed = expectOk(await s.ctx.sdk.feed.getAll(s.other.token, { type: 'referral_job_completion' }))
    expect(feed.data).toHaveLength(1)
    expect(feed.data[0]).toMatchObject({
      creator: referred.id,
      owners: [s.other.id],
      data: id,
      isPublic: false,
    })

    const list = expectOk(await get('/v1/referrals', s.other.token))
    expect(list.data.find((u: any) => u._id === referred.id)).toMatchObject({
      completedJob: true,
      firstJob: id,
      firstJobCompletedAt: ISO,
    })
    expect(expectOk(await get('/v1/referrals/stats', s.other.token))).toMatchObject({
      completedJobReferrals: 1,
    })
    // the creator was referred by nobody: no other referral event
    const events = await s.t.database.db
      .selectFrom('events')
      .select(['audience'])
      .where('type', '=', 'referral.job_completed')
      .execute()
    expect(events).toEqual([{ audience: [s.other.id] }])
  })
})
