// `sdk.connectionFilter` against the real service: create, getForAUser, update, and a refusal the
// SDK's chat opening receives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, expectError, expectOk, type SdkContext, type SdkUser, signUp, startSdk } from './helpers.ts'

let ctx: SdkContext
let ada: SdkUser
let ben: SdkUser
beforeAll(async () => {
  ctx = await startSdk()
  ada = await signUp(ctx, { firstName: 'Ada' })
  ben = await signUp(ctx, { firstName: 'Ben' })
})
afterAll(() => ctx?.t.close())

describe('connectionFilter', () => {
  it('creates, reads and updates a rule through the SDK', async () => {
    const created = expectOk(
      await ctx.sdk.connectionFilter.create(ada.token, {
        event: 'CREATE_CONVERSATION',
        key: 'afroScore',
        decider: 'greater_than',
        value: 10,
      }),
    )
    expect(created).toMatchObject({ event: 'CREATE_CONVERSATION', key: 'afroScore', value: 10 })
    expect(expectOk(await ctx.sdk.connectionFilter.getForAUser(ada.token))._id).toBe(created._id)
    const updated = expectOk(
      await ctx.sdk.connectionFilter.update(ada.token, {
        event: 'CREATE_CONVERSATION',
        key: 'afroScore',
        decider: 'between',
        value: ['5', '15'],
      }),
    )
    expect(updated).toMatchObject({ _id: created._id, decider: 'between', value: [5, 15] })
    expectError(
      await ctx.sdk.connectionFilter.create(ada.token, {
        event: 'CREATE_CONVERSATION',
        key: 'afroScore',
        decider: 'less_than',
        value: 1,
      }),
      409,
      'CONNECTION_RULE_EXISTS',
    )
    expectError(await ctx.sdk.connectionFilter.getForAUser(ben.token), 404, 'NOT_FOUND')
    expectError(
      await ctx.sdk.connectionFilter.update(ben.token, {
        event: 'CREATE_CONVERSATION',
        key: 'tags',
        decider: 'contains',
        value: ['design'],
      }),
      404,
      'NOT_FOUND',
    )
    expectError(await ctx.sdk.connectionFilter.getForAUser(''), 401, 'UNAUTHENTICATED')
  })

  it('an invite refused by the invitee’s rule answers the SDK 403 CONNECTION_FILTERED', async () => {
    // SEND_INVITE is the service's own event beside the SDK's CREATE_CONVERSATION
    expectOk(
      await ctx.sdk.connectionFilter.create(ben.token, {
        event: 'SEND_INVITE',
        key: 'verified',
        decider: 'equal_to',
        value: 'true',
      } as never),
    )
    const job = expectOk(
      await ctx.sdk.collection.create(ada.token, {
        type: 'job',
        name: 'Landing page',
        description: 'One page',
        isPrivate: false,
      } as never),
    )
    const res = await ctx.sdk.invite.sendInvite(ada.token, { recipient: ben.id, collection: job._id })
    expectError(res, 403, 'CONNECTION_FILTERED')
    expect((res.data as { rule?: object }).rule).toMatchObject({
      event: 'SEND_INVITE',
      key: 'verified',
      value: true,
    })
    // the rule list (a route the SDK has no method for)
    expect(expectOk(await call(ctx, 'GET', '/v1/conn-filter', { token: ben.token }))).toHaveLength(1)
  })
})
