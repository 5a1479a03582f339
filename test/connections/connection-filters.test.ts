// Connection filters over HTTP: a user's rules (create, change, read, list, remove) and their
// effect on invites, applications and new conversations, each refusal naming the rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let ada: TestUser
let ben: TestUser
let cy: TestUser
beforeAll(async () => {
  t = await createTestApp()
  ada = await createUser(t, { firstName: 'Ada' })
  ben = await createUser(t, { firstName: 'Ben' })
  cy = await createUser(t, { firstName: 'Cy' })
})
afterAll(() => t?.close())

const req = (
  user: TestUser | undefined,
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
) => t.req({ method, url, ...(payload ? { payload } : {}), ...(user ? { token: user.token } : {}) })

async function postJob(user: TestUser, isPrivate = false) {
  const res = await req(user, 'POST', '/v1/collection', {
    type: 'job',
    name: 'Landing page',
    description: 'One page',
    isPrivate,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

describe('/v1/conn-filter', () => {
  it('creates, reads, changes, lists and removes the caller’s rules', async () => {
    const created = await req(ada, 'POST', '/v1/conn-filter/', {
      event: 'SEND_INVITE',
      key: 'afroScore',
      decider: 'greater_than',
      value: '50',
    })
    expect(created.statusCode, created.body).toBe(200)
    expect(created.json().data).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      event: 'SEND_INVITE',
      key: 'afroScore',
      decider: 'greater_than',
      value: 50,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    expectError(
      await req(ada, 'POST', '/v1/conn-filter/', {
        event: 'SEND_INVITE',
        key: 'afroScore',
        decider: 'less_than',
        value: 9,
      }),
      409,
      'CONNECTION_RULE_EXISTS',
    )
    const tags = await req(ada, 'POST', '/v1/conn-filter/', {
      event: 'SEND_APPLICATION',
      key: 'tags',
      decider: 'contains',
      value: ['Design'],
    })
    expect(tags.json().data.value).toEqual(['design'])
    // the most recent one, or the one named
    expect((await req(ada, 'GET', '/v1/conn-filter/user')).json().data.key).toBe('tags')
    expect(
      (await req(ada, 'GET', '/v1/conn-filter/user?event=SEND_INVITE&key=afroScore')).json().data.value,
    ).toBe(50)
    const changed = await req(ada, 'PATCH', '/v1/conn-filter/', {
      event: 'SEND_INVITE',
      key: 'afroScore',
      decider: 'between',
      value: [10, 20],
    })
    expect(changed.json().data).toMatchObject({
      _id: created.json().data._id,
      decider: 'between',
      value: [10, 20],
    })
    const list = (await req(ada, 'GET', '/v1/conn-filter')).json().data
    expect(list.map((r: { key: string }) => r.key)).toEqual(['afroScore', 'tags'])
    // someone else's rules are not the caller's
    expect((await req(ben, 'GET', '/v1/conn-filter')).json().data).toEqual([])
    expectError(await req(ben, 'GET', '/v1/conn-filter/user'), 404, 'NOT_FOUND')
    expectError(await req(ben, 'DELETE', `/v1/conn-filter/${tags.json().data._id}`), 404, 'NOT_FOUND')
    expectError(
      await req(ben, 'PATCH', '/v1/conn-filter/', {
        event: 'SEND_INVITE',
        key: 'afroScore',
        decider: 'less_than',
        value: 1,
      }),
      404,
      'NOT_FOUND',
    )
    expect((await req(ada, 'DELETE', `/v1/conn-filter/${tags.json().data._id}`)).statusCode).toBe(200)
    expect((await req(ada, 'GET', '/v1/conn-filter')).json().data).toHaveLength(1)
    expect((await req(ada, 'DELETE', `/v1/conn-filter/${created.json().data._id}`)).statusCode).toBe(200)
    expectError(await req(ada, 'DELETE', `/v1/conn-filter/${newId()}`), 404, 'NOT_FOUND')
  })

  it('refuses bad rules with 400 naming the field, and every route without a token', async () => {
    const bad: [object, string][] = [
      [{ event: 'SEND_INVITE', key: 'tags', decider: 'greater_than', value: 3 }, '/decider'],
      [{ event: 'SEND_INVITE', key: 'afroScore', decider: 'between', value: [9, 1] }, '/value'],
      [{ event: 'WAVE', key: 'afroScore', decider: 'equal_to', value: 1 }, '/event'],
      [{ event: 'SEND_INVITE', key: 'karma', decider: 'equal_to', value: 1 }, '/key'],
      [{ event: 'SEND_INVITE', key: 'afroScore', decider: 'equal_to' }, ''],
    ]
    for (const [payload, path] of bad) {
      const res = await req(ada, 'POST', '/v1/conn-filter/', payload)
      expectError(res, 400, 'VALIDATION_ERROR')
      if (path) expect(JSON.stringify(res.json().data.errors), JSON.stringify(payload)).toContain(path)
    }
    const body = { event: 'SEND_INVITE', key: 'afroScore', decider: 'equal_to', value: 1 }
    expectError(await req(undefined, 'POST', '/v1/conn-filter/', body), 401, 'UNAUTHENTICATED')
    expectError(await req(undefined, 'PATCH', '/v1/conn-filter/', body), 401, 'UNAUTHENTICATED')
    expectError(await req(undefined, 'GET', '/v1/conn-filter/user'), 401, 'UNAUTHENTICATED')
    expectError(await req(undefined, 'GET', '/v1/conn-filter'), 401, 'UNAUTHENTICATED')
    expectError(await req(undefined, 'DELETE', `/v1/conn-filter/${newId()}`), 401, 'UNAUTHENTICATED')
  })
})

describe('rules at work', () => {
  it('refuses an invite from someone who fails the invitee’s rule, naming it', async () => {
    // Without rules Ben takes any invite (an answer the process keeps until his rules change).
    const before = await postJob(ada)
    expect(
      (await req(ada, 'POST', '/v1/invite/', { recipient: ben.id, collection: before })).statusCode,
    ).toBe(200)
    const rule = (
      await req(ben, 'POST', '/v1/conn-filter/', {
        event: 'SEND_INVITE',
        key: 'afroScore',
        decider: 'greater_than',
        value: 50,
      })
    ).json().data
    const job = await postJob(ada)
    const res = await req(ada, 'POST', '/v1/invite/', { recipient: ben.id, collection: job })
    expectError(res, 403, 'CONNECTION_FILTERED')
    expect(res.json().message).toBe(
      'This user accepts invites only from people with afroScore greater than 50',
    )
    expect(res.json().data.rule).toEqual(rule)
    // applications and conversations are other events: not refused by it
    expect((await req(ben, 'DELETE', `/v1/conn-filter/${rule._id}`)).statusCode).toBe(200)
    expect((await req(ada, 'POST', '/v1/invite/', { recipient: ben.id, collection: job })).statusCode).toBe(
      200,
    )
  })

  it('refuses an application from someone without the creator’s required tags, until they have them', async () => {
    await req(cy, 'POST', '/v1/conn-filter/', {
      event: 'SEND_APPLICATION',
      key: 'tags',
      decider: 'contains',
      value: 'figma',
    })
    const job = await postJob(cy)
    const apply = () => req(ben, 'POST', `/v1/collection/${job}/applications`, { message: 'I can do it' })
    const refused = await apply()
    expectError(refused, 403, 'CONNECTION_FILTERED')
    expect(refused.json().data.rule).toMatchObject({ key: 'tags', value: ['figma'] })
    const upd = await req(ben, 'PATCH', '/v1/account/update', { profile: { talent: { tags: ['Figma'] } } })
    expect(upd.statusCode, upd.body).toBe(200)
    expect((await apply()).statusCode).toBe(200)
    // the creator's own rules never stop the creator
    expect((await req(cy, 'POST', '/v1/invite/', { recipient: ada.id, collection: job })).statusCode).toBe(
      200,
    )
  })

  it('refuses a new direct conversation from someone who fails the recipient’s rule', async () => {
    // Ada and Cy share a job (Cy invited Ada above; Ada accepts)
    const invites = (await req(ada, 'GET', '/v1/invite/')).json().data.data as {
      _id: string
      status: string
    }[]
    const pending = invites.find((i) => i.status === 'pending')!
    expect((await req(ada, 'POST', `/v1/invite/${pending._id}/accept`)).statusCode).toBe(200)
    await req(ada, 'POST', '/v1/conn-filter/', {
      event: 'CREATE_CONVERSATION',
      key: 'verified',
      decider: 'equal_to',
      value: true,
    })
    const res = await req(cy, 'POST', '/v1/chat', { recipientId: ada.id })
    expectError(res, 403, 'CONNECTION_FILTERED')
    expect(res.json().message).toBe(
      'This user accepts new conversations only from people with a verified identity',
    )
    // Ada may still open it herself, and then Cy reaches the conversation that exists
    const opened = await req(ada, 'POST', '/v1/chat', { recipientId: cy.id })
    expect(opened.statusCode, opened.body).toBe(200)
    const again = await req(cy, 'POST', '/v1/chat', { recipientId: ada.id })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data._id).toBe(opened.json().data._id)
  })
})
