// GET /v1/account/user (#40) answers from one statement for the unfiltered list and a search by
// words or tags (the page's rows with their tags, achievements and the caller's bookmark, and the
// total), two for other filters (the page and its count).
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { api, expectOk } from './helpers.ts'

let t: TestApp
let a: ReturnType<typeof api>
let viewer: TestUser
const tag = `tag${randomBytes(4).toString('hex')}`
const people: TestUser[] = []

beforeAll(async () => {
  t = await createTestApp()
  a = api(t)
  viewer = await createUser(t)
  for (let i = 0; i < 5; i++) {
    const u = await createUser(t, { firstName: `Quentin${i}` })
    t.clock.advance(1000)
    expectOk(
      await a.patch('/v1/account/update', { profile: { talent: { tags: [tag, `other${i}`] } } }, u.token),
    )
    people.push(u)
  }
  expectOk(await a.post('/v1/bookmark', { type: 'user', reference: people[1]!.id }, viewer.token))
})
afterAll(async () => {
  await t?.close()
})

async function searched(query: string) {
  const before = t.database.queryCount()
  const data = expectOk(await a.get(`/v1/account/user?${query}`, viewer.token))
  return { queries: t.database.queryCount() - before, data }
}

describe('the people search’s queries', () => {
  it('answers a search by words and tags, rows and total, in one statement', async () => {
    const { queries, data } = await searched(`search=quentin&tags=${tag}&limit=3`)
    expect(queries).toBe(1)
    expect(data.total).toBe(5)
    expect(data.data.map((u: { _id: string }) => u._id)).toEqual(
      [people[4], people[3], people[2]].map((u) => u!.id),
    )
    expect(data.data[0].profile.talent.tagsIds.map((x: { name: string }) => x.name)).toEqual([tag, 'other4'])
  })

  it('answers the unfiltered list with its kept total in one statement', async () => {
    const { queries, data } = await searched('limit=50')
    expect(queries).toBe(1)
    expect(data.total).toBe(data.data.length)
    const marked = data.data.find((u: { _id: string }) => u._id === people[1]!.id)
    expect(marked).toMatchObject({ isBookmarked: true })
  })

  it('takes at most two statements with another filter or past the end', async () => {
    expect((await searched('role=user&limit=2')).queries).toBeLessThanOrEqual(2)
    expect((await searched('page=50')).queries).toBeLessThanOrEqual(2)
    expect((await searched(`tags=${tag}&page=50`)).queries).toBeLessThanOrEqual(2)
  })
})
