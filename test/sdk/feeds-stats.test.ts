// The SDK methods added beside the spec's endpoints: feed.create, auth.resendResetPassword,
// account.onboardEndpoint, wallet.getTransactionStats and wallet.getAggregateTransactionStats,
// each called as a client app would, against the real service over a socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { lastCode, mailCount, uniqueEmail } from '../helpers/factories.ts'
import { expectError, expectOk, type SdkContext, type SdkUser, signUp, startSdk, upload } from './helpers.ts'

let ctx: SdkContext
let alice: SdkUser
let bob: SdkUser
beforeAll(async () => {
  ctx = await startSdk()
  alice = await signUp(ctx, { firstName: 'Alice' })
  bob = await signUp(ctx, { firstName: 'Bob' })
})
afterAll(() => ctx?.t.close())

describe('feed.create', () => {
  it('posts an entry that getAll and getById then show; a private one only to its owners', async () => {
    const created = expectOk(
      await ctx.sdk.feed.create(alice.token, {
        title: 'Portfolio updated',
        description: 'Three new case studies',
        type: 'collection_update',
        data: 'portfolio',
        isPublic: true,
      }),
    )
    expect(created).toMatchObject({ creator: alice.id, owners: [alice.id], type: 'collection_update' })
    const mine = expectOk(await ctx.sdk.feed.getAll(alice.token))
    expect(mine.data.map((f: { _id: string }) => f._id)).toContain(created._id)
    expect(expectOk(await ctx.sdk.feed.getById(bob.token, created._id)).title).toBe('Portfolio updated')

    const secret = expectOk(
      await ctx.sdk.feed.create(alice.token, {
        title: 'For Bob',
        description: 'Only Bob sees this',
        type: 'collection_update',
        data: '',
        isPublic: false,
        owners: [bob.id],
      }),
    )
    expect(expectOk(await ctx.sdk.feed.getById(bob.token, secret._id)).owners).toEqual([bob.id])
    const stranger = await signUp(ctx, { firstName: 'Stan' })
    expectError(await ctx.sdk.feed.getById(stranger.token, secret._id), 404, 'NOT_FOUND')
    expectError(
      await ctx.sdk.feed.create(alice.token, {
        title: '',
        description: 'x',
        type: 'collection_update',
        data: '',
        isPublic: true,
      }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.feed.create('', {
        title: 'x',
        description: 'x',
        type: 'collection_update',
        data: '',
        isPublic: true,
      }),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('auth.resendResetPassword', () => {
  it('mails a new reset code whose tempToken resets the password; an unknown email gets the same answer', async () => {
    const before = await mailCount(ctx.t, bob.email)
    expectOk(await ctx.sdk.auth.resetPassword({ email: bob.email }))
    const again = expectOk(await ctx.sdk.auth.resendResetPassword({ email: bob.email }))
    expect(Object.keys(again.tempToken).sort()).toEqual(['expiresIn', 'token', 'token_type'])
    expect(await mailCount(ctx.t, bob.email)).toBe(before + 2)
    const code = await lastCode(ctx.t, bob.email)
    expectOk(await ctx.sdk.auth.validatePasswordToken({ token: code, tempToken: again.tempToken.token }))
    const ghost = expectOk(await ctx.sdk.auth.resendResetPassword({ email: uniqueEmail('ghost') }))
    expect(Object.keys(ghost)).toEqual(['tempToken'])
    expectError(await ctx.sdk.auth.resendResetPassword({ email: 'nope' }), 400, 'VALIDATION_ERROR')
  })
})

describe('account.onboardEndpoint', () => {
  it('saves the skill category, profile image and type, and refuses an unknown category', async () => {
    const file = await upload(ctx, alice)
    const me = expectOk(await ctx.sdk.account.onboardEndpoint('Design', file._id, 'talent', alice.token))
    expect(me).toMatchObject({
      _id: alice.id,
      type: 'talent',
      profileImage: { _id: file._id },
      profile: { talent: { tagsCategory: 'Design' } },
    })
    expectError(
      await ctx.sdk.account.onboardEndpoint('Astrology', file._id, 'talent', alice.token),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await ctx.sdk.account.onboardEndpoint('Design', file._id, 'talent', ''),
      401,
      'UNAUTHENTICATED',
    )
  })
})

describe('wallet.getTransactionStats, wallet.getAggregateTransactionStats', () => {
  it('answers the weekly counts and the yearly totals of the caller', async () => {
    await ctx.t.database.db.transaction().execute((tx) =>
      ctx.t.app.services.transactions.record(tx, {
        ownerId: alice.id,
        coin: 'usdc',
        amount: 3_000_000n,
        type: 'deposit',
        method: 'transfer',
        status: 'completed',
      }),
    )
    // The SDK's type asks for a format, but its request sends none: the service's default (weekly).
    const stats = expectOk(await ctx.sdk.wallet.getTransactionStats(alice.token, 'yearly'))
    expect(stats).toHaveLength(7)
    expect(stats[6]).toMatchObject({ count: 1, date: ctx.t.clock.now().toISOString().slice(0, 10) })
    const totals = expectOk(await ctx.sdk.wallet.getAggregateTransactionStats(alice.token))
    expect(totals).toEqual([
      expect.objectContaining({ type: 'deposit', coin: 'usdc', amount: 3, usdValue: 3, count: 1 }),
    ])
    expect(expectOk(await ctx.sdk.wallet.getAggregateTransactionStats(bob.token))).toEqual([])
    expectError(await ctx.sdk.wallet.getTransactionStats('', 'weekly'), 401, 'UNAUTHENTICATED')
  })
})
