// Collection schemas and stores over HTTP: admins define schemas; users read them and keep records
// checked against the fields (required, types, enums, lengths, ranges, unique values), listed with
// filters and a count, private ones seen by their owner only, changed and deleted by their owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { adminEnv, createAdmin, expectError } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

const RUN = `st${Date.now().toString(36)}`
let t: TestApp
let admin: TestUser
let ada: TestUser
let ben: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(RUN) })
  admin = await createAdmin(t, RUN)
  ada = await createUser(t)
  ben = await createUser(t)
})
afterAll(() => t?.close())

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'
const req = (user: TestUser | undefined, method: Method, url: string, payload?: object) =>
  t.req({ method, url, ...(payload ? { payload } : {}), ...(user ? { token: user.token } : {}) })

const FIELDS = [
  { name: 'title', type: 'string', required: true, unique: true, maxLength: 20 },
  {
    name: 'level',
    type: 'string',
    required: false,
    unique: false,
    enum: ['junior', 'senior'],
    default: 'junior',
  },
  { name: 'hours', type: 'number', required: false, unique: false, min: 0, max: 80 },
  { name: 'remote', type: 'boolean', required: false, unique: false },
  { name: 'due', type: 'date', required: false, unique: false },
]

describe('collection schemas', () => {
  it('admins create, change and delete schemas; users read them by id or reference', async () => {
    const created = await req(admin, 'POST', '/v1/admin/collection-schemas', {
      name: 'Portfolio Item',
      description: 'Work to show',
      schema: FIELDS,
    })
    expect(created.statusCode, created.body).toBe(200)
    const s = created.json().data
    expect(s).toMatchObject({
      name: 'Portfolio Item',
      reference: 'portfolio-item',
      description: 'Work to show',
    })
    expect(s.schema).toEqual(FIELDS)
    expect((await req(ada, 'GET', `/v2/collection-schema/${s._id}`)).json().data).toEqual(s)
    expect((await req(ada, 'GET', '/v2/collection-schema/portfolio-item')).json().data._id).toBe(s._id)
    const list = (await req(ada, 'GET', '/v2/collection-schema/?name=portfolio')).json().data
    expect(list).toMatchObject({ total: 1, page: 1, pages: 1, limit: 12 })
    expectError(
      await req(admin, 'POST', '/v1/admin/collection-schemas', {
        name: 'portfolio item',
        description: '',
        schema: FIELDS,
      }),
      409,
      'SCHEMA_EXISTS',
    )
    const scratch = (
      await req(admin, 'POST', '/v1/admin/collection-schemas', {
        name: 'Scratch',
        description: '',
        schema: [FIELDS[0]],
      })
    ).json().data
    const changed = await req(admin, 'PATCH', `/v1/admin/collection-schemas/${scratch._id}`, {
      description: 'Tmp',
    })
    expect(changed.json().data.description).toBe('Tmp')
    expect((await req(admin, 'DELETE', '/v1/admin/collection-schemas/scratch')).statusCode).toBe(200)
    expectError(await req(ada, 'GET', '/v2/collection-schema/scratch'), 404, 'NOT_FOUND')
  })

  it('refuses bad fields, and schema changes from anyone but an elevated admin', async () => {
    const bad: [unknown[], string][] = [
      [[FIELDS[0], FIELDS[0]], '/schema/1/name'],
      [[{ name: 'owner', type: 'string', required: false, unique: false }], '/schema/0/name'],
      [[{ name: 'n', type: 'number', required: false, unique: false, min: 5, max: 1 }], '/schema/0/min'],
      [[{ name: 'b', type: 'boolean', required: false, unique: true }], '/schema/0/unique'],
      [
        [{ name: 'l', type: 'string', required: false, unique: false, enum: ['a'], default: 'b' }],
        '/schema/0/default',
      ],
      [[{ name: 'x', type: 'money', required: false, unique: false }], '/schema/0/type'],
    ]
    for (const [schema, path] of bad) {
      const res = await req(admin, 'POST', '/v1/admin/collection-schemas', {
        name: `Bad ${path}`,
        description: '',
        schema,
      })
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(JSON.stringify(res.json().data.errors), path).toContain(path)
    }
    const body = { name: 'Nope', description: '', schema: [FIELDS[0]] }
    expectError(await req(ada, 'POST', '/v1/admin/collection-schemas', body), 403, 'FORBIDDEN')
    expectError(await req(undefined, 'POST', '/v1/admin/collection-schemas', body), 401, 'UNAUTHENTICATED')
    const unelevated = await createAdmin(t, RUN, 1, false)
    expectError(await req(unelevated, 'POST', '/v1/admin/collection-schemas', body), 403, 'FORBIDDEN')
    expectError(await req(undefined, 'GET', '/v2/collection-schema/'), 401, 'UNAUTHENTICATED')
  })
})

describe('collection stores', () => {
  const store = '/v2/collection-store/portfolio-item'

  it('keeps records checked against the schema, with defaults, filters and a count', async () => {
    const one = await req(ada, 'POST', store, {
      title: 'Landing page',
      hours: 12,
      remote: true,
      due: '2031-01-01',
    })
    expect(one.statusCode, one.body).toBe(200)
    expect(one.json().data).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      title: 'Landing page',
      level: 'junior',
      hours: 12,
      remote: true,
      due: '2031-01-01',
      owner: ada.id,
      isPrivate: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    })
    await req(ben, 'POST', store, { title: 'Shop', level: 'senior', hours: 40 })
    const hidden = (await req(ben, 'POST', store, { title: 'Secret', isPrivate: true })).json().data
    const all = (await req(ada, 'GET', store)).json().data
    expect(all).toMatchObject({ total: 2, page: 1, pages: 1, limit: 12 })
    expect(all.data.map((r: { title: string }) => r.title)).toEqual(['Shop', 'Landing page'])
    expect((await req(ben, 'GET', store)).json().data.total).toBe(3)
    expect(
      (await req(ada, 'GET', `${store}?level=senior`))
        .json()
        .data.data.map((r: { title: string }) => r.title),
    ).toEqual(['Shop'])
    expect((await req(ada, 'GET', `${store}?hours=12&limit=1`)).json().data.total).toBe(1)
    expect((await req(ada, 'GET', `${store}/count?level=junior`)).json().data).toBe(1)
    expect((await req(ben, 'GET', `${store}/count`)).json().data).toBe(3)
    expectError(await req(ada, 'GET', `${store}?colour=red`), 400, 'VALIDATION_ERROR')
    expectError(await req(ada, 'GET', `${store}/${hidden._id}`), 404, 'NOT_FOUND')
    expect((await req(ben, 'GET', `${store}/${hidden._id}`)).json().data.title).toBe('Secret')
    expectError(await req(ada, 'GET', '/v2/collection-store/nothing-here'), 404, 'NOT_FOUND')
  })

  it('refuses a record that does not fit, naming each field, and a taken unique value', async () => {
    const res = await req(ada, 'POST', store, {
      level: 'guru',
      hours: 81,
      remote: 'yes',
      due: 'soon',
      colour: 'red',
    })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(
      res
        .json()
        .data.errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['/colour', '/due', '/hours', '/level', '/remote', '/title'].sort())
    expectError(await req(ada, 'POST', store, { title: 'x'.repeat(21) }), 400, 'VALIDATION_ERROR')
    expectError(await req(ada, 'POST', store, { title: 'Shop' }), 409, 'RECORD_VALUE_TAKEN')
    expectError(await req(undefined, 'POST', store, { title: 'Anon' }), 401, 'UNAUTHENTICATED')
  })

  it('lets only the owner change or delete a record', async () => {
    const rec = (await req(ada, 'POST', store, { title: 'Blog', hours: 5 })).json().data
    const changed = await req(ada, 'PATCH', `${store}/${rec._id}`, {
      hours: 6,
      remote: null,
      level: 'senior',
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().data).toMatchObject({ title: 'Blog', hours: 6, level: 'senior' })
    expectError(await req(ada, 'PATCH', `${store}/${rec._id}`, { title: null }), 400, 'VALIDATION_ERROR')
    expectError(await req(ada, 'PATCH', `${store}/${rec._id}`, { title: 'Shop' }), 409, 'RECORD_VALUE_TAKEN')
    expectError(await req(ben, 'PATCH', `${store}/${rec._id}`, { hours: 1 }), 403, 'FORBIDDEN')
    expectError(await req(ben, 'DELETE', `${store}/${rec._id}`), 403, 'FORBIDDEN')
    expectError(await req(ada, 'DELETE', `${store}/${newId()}`), 404, 'NOT_FOUND')
    expect((await req(ada, 'DELETE', `${store}/${rec._id}`)).statusCode).toBe(200)
    expectError(await req(ada, 'GET', `${store}/${rec._id}`), 404, 'NOT_FOUND')
    // a schema with records cannot be deleted
    expectError(
      await req(admin, 'DELETE', '/v1/admin/collection-schemas/portfolio-item'),
      409,
      'SCHEMA_HAS_RECORDS',
    )
  })
})
