// Collection types: the list and one type (/v1/collection-type), the admin's changes with their
// audit rows, and collection creation and update checked against them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

const run = runId()
let t: TestApp
let admin: TestUser
let user: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
  user = await createUser(t)
})
afterAll(() => t.close())

const get = (url: string, token?: string) => t.req({ method: 'GET', url, ...(token ? { token } : {}) })
const adminCreate = (payload: object, token = admin.token) =>
  t.req({ method: 'POST', url: '/v1/admin/collection-types', token, payload })
const adminPatch = (id: string, payload: object, token = admin.token) =>
  t.req({ method: 'PATCH', url: `/v1/admin/collection-types/${id}`, token, payload })
const createCollection = (type: string) =>
  t.req({
    method: 'POST',
    url: '/v1/collection',
    token: user.token,
    payload: { type, name: 'A job', description: 'Some work' },
  })

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('GET /v1/collection-type', () => {
  it('lists the seeded defaults, oldest first, in the SDK’s page shape', async () => {
    const data = expectOk(await get('/v1/collection-type', user.token))
    expect(data).toMatchObject({ total: 5, pages: 1, page: 1, limit: 12 })
    expect(data.data.map((x: any) => x.value)).toEqual(['job', 'gig', 'milestone', 'deliverable', 'funding'])
    expect(data.data[0]).toEqual({
      _id: '000000000000000000000001',
      name: 'Job',
      value: 'job',
      description: '',
      active: true,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      updateAt: expect.stringMatching(ISO),
      deletedAt: null,
    })
  })

  it('pages and filters', async () => {
    const p2 = expectOk(await get('/v1/collection-type?page=2&limit=2', user.token))
    expect(p2).toMatchObject({ total: 5, pages: 3, page: 2, limit: 2 })
    expect(p2.data.map((x: any) => x.value)).toEqual(['milestone', 'deliverable'])
    const past = expectOk(await get('/v1/collection-type?page=9&limit=2', user.token))
    expect(past).toMatchObject({ data: [], total: 5, page: 9 })
    expect(
      expectOk(await get('/v1/collection-type?search=MIL', user.token)).data.map((x: any) => x.value),
    ).toEqual(['milestone'])
    expect(expectOk(await get('/v1/collection-type?value=GIG', user.token)).total).toBe(1)
    expect(expectOk(await get('/v1/collection-type?name=funding%20request', user.token)).total).toBe(1)
    expect(expectOk(await get('/v1/collection-type?search=100%25', user.token)).total).toBe(0)
  })

  it.each(['limit=0', 'limit=101', 'page=0', 'colour=red', 'search=' + 'x'.repeat(41)])(
    'refuses %s with 400',
    async (q) => {
      expectError(await get(`/v1/collection-type?${q}`, user.token), 400, 'VALIDATION_ERROR')
    },
  )

  it('needs a token', async () => {
    expectError(await get('/v1/collection-type'), 401, 'UNAUTHENTICATED')
    expectError(await get('/v1/collection-type/000000000000000000000001'), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/collection-type/:id', () => {
  it('answers one type, with or without the SDK’s repeated ?id=', async () => {
    const id = '000000000000000000000002'
    expect(expectOk(await get(`/v1/collection-type/${id}`, user.token))).toMatchObject({
      _id: id,
      value: 'gig',
    })
    expect(expectOk(await get(`/v1/collection-type/${id}?id=${id}`, user.token))).toMatchObject({ _id: id })
    expectError(
      await get(`/v1/collection-type/${id}?id=000000000000000000000001`, user.token),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await get('/v1/collection-type/ffffffffffffffffffffffff', user.token), 404, 'NOT_FOUND')
    expectError(await get('/v1/collection-type/nope', user.token), 400, 'VALIDATION_ERROR')
  })
})

describe('collections are checked against the types', () => {
  it('accepts an active type in any case and stores its value', async () => {
    const res = await createCollection('JOB')
    expect(expectOk(res).type).toBe('job')
  })

  it('refuses an unknown type with 400 at /type', async () => {
    const res = await createCollection('planet')
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json().data.errors).toEqual([{ path: '/type', message: expect.stringContaining('planet') }])
  })

  it('refuses an unknown type on update; an unchanged one passes', async () => {
    const col = expectOk(await createCollection('gig'))
    const patch = (type: string) =>
      t.req({
        method: 'PATCH',
        url: `/v1/collection/${col._id}`,
        token: user.token,
        payload: { type, name: col.name, description: col.description },
      })
    expectError(await patch('planet'), 400, 'VALIDATION_ERROR')
    expect((await patch('gig')).statusCode).toBe(200)
    expect((await patch('Milestone')).statusCode).toBe(200)
    expect(expectOk(await get(`/v1/collection/${col._id}`, user.token)).type).toBe('milestone')
  })
})

describe('admins change the types', () => {
  let bountyId: string

  it('an admin adds a type; it is listed and accepted at once, and audited', async () => {
    const res = await adminCreate({
      name: 'Bounty',
      value: 'bounty',
      description: 'Paid on result',
      reason: 'New product',
    })
    const created = expectOk(res)
    expect(created).toMatchObject({
      name: 'Bounty',
      value: 'bounty',
      description: 'Paid on result',
      active: true,
    })
    bountyId = created._id
    const list = expectOk(await get('/v1/collection-type?limit=100', user.token))
    expect(list.data.at(-1)).toMatchObject({ _id: bountyId, value: 'bounty' })
    expect(expectOk(await createCollection('bounty')).type).toBe('bounty')
    const [row] = await auditRows(t, 'collection-type.create')
    expect(row).toMatchObject({ actorId: admin.id, targetId: bountyId, reason: 'New product' })
  })

  it('a value taken in any case is 409; bad bodies are 400', async () => {
    expectError(
      await adminCreate({ name: 'Job again', value: 'JOB', reason: 'dup' }),
      409,
      'COLLECTION_TYPE_EXISTS',
    )
    expectError(await adminCreate({ name: 'x', value: '-bad', reason: 'bad value' }), 400, 'VALIDATION_ERROR')
    expectError(
      await adminCreate({ name: '  ', value: 'blank', reason: 'blank name' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await adminCreate({ name: 'No reason', value: 'noreason' }), 400, 'VALIDATION_ERROR')
    expectError(
      await adminCreate({ name: 'Extra', value: 'extra', reason: 'extra field', colour: 'red' }),
      400,
      'VALIDATION_ERROR',
    )
  })

  it('retiring a type hides it and refuses it for new collections; restoring brings it back', async () => {
    // used first, so that the process keeps its lookup: the retirement must drop it
    expect(expectOk(await createCollection('BOUNTY')).type).toBe('bounty')
    const retired = expectOk(
      await adminPatch(bountyId, { active: false, name: 'Bounty (old)', reason: 'Retire' }),
    )
    expect(retired).toMatchObject({
      active: false,
      name: 'Bounty (old)',
      deletedAt: expect.stringMatching(ISO),
    })
    expectError(await get(`/v1/collection-type/${bountyId}`, user.token), 404, 'NOT_FOUND')
    expect(expectOk(await get('/v1/collection-type?value=bounty', user.token)).total).toBe(0)
    expectError(await createCollection('bounty'), 400, 'VALIDATION_ERROR')
    const all = expectOk(
      await t.req({ method: 'GET', url: '/v1/admin/collection-types?limit=100', token: admin.token }),
    )
    expect(all.data.find((x: any) => x._id === bountyId)).toMatchObject({ active: false })
    // Retired, the value stays taken.
    expectError(
      await adminCreate({ name: 'Bounty', value: 'Bounty', reason: 'again' }),
      409,
      'COLLECTION_TYPE_EXISTS',
    )
    expect(expectOk(await adminPatch(bountyId, { active: true, reason: 'Back' }))).toMatchObject({
      active: true,
      deletedAt: null,
    })
    expect(expectOk(await createCollection('bounty')).type).toBe('bounty')
    expect((await auditRows(t, 'collection-type.update')).map((r) => r.reason)).toEqual(['Retire', 'Back'])
  })

  it('an unknown id is 404; a blank name 400', async () => {
    expectError(
      await adminPatch('ffffffffffffffffffffffff', { active: false, reason: 'x-y-z' }),
      404,
      'NOT_FOUND',
    )
    expectError(await adminPatch(bountyId, { name: ' ', reason: 'blank' }), 400, 'VALIDATION_ERROR')
  })

  it('is for elevated admins only', async () => {
    expectError(
      await adminCreate({ name: 'Sneaky', value: 'sneaky', reason: 'not an admin' }, user.token),
      403,
      'FORBIDDEN',
    )
    expectError(
      await adminPatch(bountyId, { active: false, reason: 'not an admin' }, user.token),
      403,
      'FORBIDDEN',
    )
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/collection-types', token: user.token }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await t.req({ method: 'POST', url: '/v1/admin/collection-types', payload: {} }),
      401,
      'UNAUTHENTICATED',
    )
    const plain = await createAdmin(t, run, 1, false)
    expectError(
      await adminCreate({ name: 'Later', value: 'later', reason: 'no second factor' }, plain.token),
      403,
      'FORBIDDEN',
    )
    expect(expectOk(await get('/v1/collection-type?value=sneaky', user.token)).total).toBe(0)
  })
})
