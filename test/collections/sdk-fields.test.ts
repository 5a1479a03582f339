// Collections as the public SDK sends them: `paymentFee` as a JSON number or a decimal string on
// #26 and #29, and GET /v1/bookmark/{id}.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  anyId,
  createCollection,
  createMember,
  expectError,
  fullForm,
  isoTimestamp,
  type Member,
  summaryOf,
} from './helpers.ts'

let t: TestApp
let alice: Member
let bob: Member
beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
})
afterAll(() => t.close())

const create = (token: string, body: Record<string, unknown>) =>
  t.req({
    method: 'POST',
    url: '/v1/collection',
    token,
    payload: { type: 'job', name: 'Priced job', description: 'Work', ...body },
  })
const patch = (token: string, id: string, body: Record<string, unknown>) =>
  t.req({ method: 'PATCH', url: `/v1/collection/${id}`, token, payload: body })

async function storedFee(id: string) {
  const row = await t.database.db
    .selectFrom('collections')
    .select('paymentFee')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return String(row.paymentFee)
}

describe('paymentFee as a number or a decimal string', () => {
  it.each([
    [150.5, 150.5, '150.50'],
    ['150.50', 150.5, '150.50'],
    ['150.5', 150.5, '150.50'],
    [42, 42, '42.00'],
    ['42', 42, '42.00'],
    [0, 0, '0.00'],
    [0.01, 0.01, '0.01'],
    [999_999_999_999.99, 999_999_999_999.99, '999999999999.99'],
    ['999999999999.99', 999_999_999_999.99, '999999999999.99'],
  ])('#26 takes %j: answered as the number %j, stored as %s', async (sent, answered, stored) => {
    const res = await create(alice.token, { paymentFee: sent })
    expect(res.statusCode, res.body).toBe(200)
    const data = res.json().data
    expect(data.paymentFee).toBe(answered)
    expect(await storedFee(data._id)).toBe(stored)
    const got = await t.req({ method: 'GET', url: `/v1/collection/${data._id}`, token: alice.token })
    expect(got.json().data.paymentFee).toBe(answered)
  })

  it('#29 takes either form and answers the older shape’s string', async () => {
    const col = await createCollection(t, alice.token, { paymentFee: '10' })
    const asNumber = await patch(alice.token, col._id, { paymentFee: 250.75 })
    expect(asNumber.statusCode, asNumber.body).toBe(200)
    expect(asNumber.json().message).toBe('Accepted')
    expect(asNumber.json().data.paymentFee).toBe('250.75')
    const asString = await patch(alice.token, col._id, { paymentFee: '99.9' })
    expect(asString.json().data.paymentFee).toBe('99.90')
    expect(await storedFee(col._id)).toBe('99.90')
    const full = await t.req({ method: 'GET', url: `/v1/collection/${col._id}`, token: alice.token })
    expect(full.json().data.paymentFee).toBe(99.9)
  })

  it('a price given as a number is found by the price filter like one given as a string', async () => {
    const asNumber = (await create(bob.token, { name: 'numberpriced', paymentFee: 1234.5 })).json().data
    const asString = (await create(bob.token, { name: 'numberpriced', paymentFee: '1234.50' })).json().data
    const res = await t.req({
      method: 'GET',
      url: '/v1/collection?price=1234.5-1234.5&search=numberpriced',
      token: bob.token,
    })
    expect(res.statusCode, res.body).toBe(200)
    expect(
      res
        .json()
        .data.data.map((c: { _id: string }) => c._id)
        .sort(),
    ).toEqual([asNumber._id, asString._id].sort())
  })

  const bad: Array<[string, unknown]> = [
    ['a negative number', -1],
    ['a negative string', '-1'],
    ['three decimals as a number', 12.345],
    ['three decimals as a string', '12.345'],
    ['a float that is not a cent amount', 0.1 + 0.2],
    ['a tiny number', 1e-7],
    ['a number over the maximum', 1e12],
    ['a string over the maximum', '1000000000000'],
    ['exponent notation as a string', '1e3'],
    ['spaces', ' 5'],
    ['an empty string', ''],
    ['a boolean', true],
    ['null', null],
    ['an object', { amount: 5 }],
    ['an array', [5]],
  ]

  it.each(bad)('#26 refuses %s with 400', async (_name, paymentFee) => {
    const res = await create(alice.token, { name: 'refused-fee', paymentFee })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors[0].path).toMatch(/^\/paymentFee/)
  })

  it.each(bad)('#29 refuses %s with 400 and changes nothing', async (_name, paymentFee) => {
    const col = await createCollection(t, alice.token, { paymentFee: '7.25' })
    const res = await patch(alice.token, col._id, { paymentFee })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(await storedFee(col._id)).toBe('7.25')
  })

  it('#29 still answers 403 to someone else, whatever the form', async () => {
    const col = await createCollection(t, alice.token)
    expectError(await patch(bob.token, col._id, { paymentFee: 5 }), 403, 'FORBIDDEN')
    expect(await storedFee(col._id)).toBe('0.00')
  })
})

describe('GET /v1/bookmark/{id}', () => {
  const add = (token: string, payload: unknown) =>
    t.req({ method: 'POST', url: '/v1/bookmark', token, payload: payload as object })
  const getOne = (token: string | undefined, id: string) =>
    t.req({ method: 'GET', url: `/v1/bookmark/${id}`, ...(token ? { token } : {}) })

  it('answers one of the caller’s bookmarks with its collection or user, as in the list', async () => {
    const carol = await createMember(t, { firstName: 'Carol' })
    const col = await createCollection(t, bob.token, { name: 'Marked job' })
    const onCollection = (await add(carol.token, { type: 'collection', reference: col._id })).json().data
    const onUser = (await add(carol.token, { type: 'user', reference: alice.id })).json().data

    const res = await getOne(carol.token, onCollection._id)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        _id: onCollection._id,
        owner: carol.id,
        type: 'collection',
        reference: col._id,
        createdAt: isoTimestamp,
        updatedAt: isoTimestamp,
        __v: 0,
        collection: fullForm(bob, { _id: col._id, name: 'Marked job' }),
        // the SDK's field for the bookmarked item
        data: fullForm(bob, { _id: col._id, name: 'Marked job' }),
      },
    })
    const user = (await getOne(carol.token, onUser._id)).json().data
    expect(user).toEqual({ ...onUser, user: summaryOf(alice) })
    expect(user._id).toEqual(anyId)
    // The same item as the list holds.
    const list = (await t.req({ method: 'GET', url: '/v1/bookmark', token: carol.token })).json().data.data
    expect(list).toContainEqual(res.json().data)
  })

  it('shows null for a collection that is no longer visible', async () => {
    const dave = await createMember(t, { firstName: 'Dave' })
    const col = await createCollection(t, bob.token)
    const mark = (await add(dave.token, { type: 'collection', reference: col._id })).json().data
    await t.req({
      method: 'PATCH',
      url: `/v1/collection/${col._id}`,
      token: bob.token,
      payload: { isPrivate: true },
    })
    const res = await getOne(dave.token, mark._id)
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ _id: mark._id, collection: null })
  })

  it('answers 404 for another user’s bookmark, an unknown id and a removed one', async () => {
    const erin = await createMember(t, { firstName: 'Erin' })
    const col = await createCollection(t, alice.token)
    const mark = (await add(erin.token, { type: 'collection', reference: col._id })).json().data
    expectError(await getOne(bob.token, mark._id), 404, 'NOT_FOUND')
    expectError(await getOne(erin.token, newId()), 404, 'NOT_FOUND')
    await t.req({ method: 'DELETE', url: `/v1/bookmark/${mark._id}`, token: erin.token })
    expectError(await getOne(erin.token, mark._id), 404, 'NOT_FOUND')
  })

  it('refuses a malformed id (400) and a missing token (401)', async () => {
    expectError(await getOne(alice.token, 'not-an-id'), 400, 'VALIDATION_ERROR')
    expectError(await getOne(undefined, newId()), 401, 'UNAUTHENTICATED')
  })
})
