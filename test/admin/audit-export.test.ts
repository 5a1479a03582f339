// The audit log as operators read it: each row with its admin's email, and the CSV export with the
// list's filters (RFC 4180 quoting, spreadsheet formulas defused), for admins only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { adminEnv, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
let admin: TestUser
let target: TestUser
const run = runId()

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
  target = await createUser(t)
})
afterAll(() => t?.close())

const suspend = (verb: 'suspend' | 'unsuspend', reason: string) =>
  t.req({
    method: 'POST',
    url: `/v1/admin/users/${target.id}/${verb}`,
    token: admin.token,
    payload: { reason },
  })
const exportCsv = (qs: string, token = admin.token) =>
  t.req({ method: 'GET', url: `/v1/admin/audit/export?${qs}`, token })

/** An RFC 4180 reader, written apart from the service's writer. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i++
    } else field += c
  }
  return rows
}

describe('GET /v1/admin/audit/export', () => {
  it('answers the filtered log as CSV, newest first, every field quoted as needed', async () => {
    const before = t.clock.now().toISOString()
    const tricky = '=HYPERLINK("http://evil") , "quoted", line\nbreak'
    expectOk(await suspend('suspend', tricky))
    t.clock.advance(1000)
    expectOk(await suspend('unsuspend', 'Cleared by support, ticket 12'))

    const res = await exportCsv(`target=${target.id}&from=${encodeURIComponent(before)}`)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    expect(res.headers['x-total-count']).toBe('2')
    const [header, ...rows] = parseCsv(res.body)
    expect(header).toEqual([
      'createdAt',
      'actorId',
      'actorEmail',
      'action',
      'targetType',
      'targetId',
      'reason',
      'requestId',
      'ip',
      'details',
    ])
    expect(rows.map((r) => r[3])).toEqual(['user.unsuspend', 'user.suspend'])
    const [newest, oldest] = rows
    expect(newest).toMatchObject({
      1: admin.id,
      2: admin.email,
      5: target.id,
      6: 'Cleared by support, ticket 12',
    })
    // the formula is defused with an apostrophe; quotes, comma and line break survive the quoting
    expect(oldest![6]).toBe(`'${tricky}`)
    expect(Date.parse(oldest![0]!)).toBeLessThan(Date.parse(newest![0]!))

    const none = await exportCsv(`target=${target.id}&action=user.grant`)
    expect(parseCsv(none.body)).toHaveLength(1)
    expect(none.headers['x-total-count']).toBe('0')
  })

  it('refuses bad filters, and is for elevated admins only', async () => {
    expectError(await exportCsv('page=2'), 400, 'VALIDATION_ERROR')
    expectError(
      await exportCsv('from=2030-01-01T00:00:00.000Z&to=2029-01-01T00:00:00.000Z'),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await t.req({ method: 'GET', url: '/v1/admin/audit/export' }), 401, 'UNAUTHENTICATED')
    expectError(await exportCsv('', (await createUser(t)).token), 403, 'FORBIDDEN')
  })
})
