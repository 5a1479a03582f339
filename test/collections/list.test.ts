// GET /v1/collection (#27) over a known set of collections: every filter alone and combined,
// privacy, bookmarks and pagination.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  createCollection,
  createMember,
  expectError,
  fullForm,
  insertEscrowRow,
  inTx,
  type Member,
  summaryOf,
} from './helpers.ts'

let t: TestApp
let alice: Member
let bob: Member
let carol: Member
const c: Record<string, any> = {}

beforeAll(async () => {
  t = await createTestApp()
  alice = await createMember(t, { firstName: 'Alice' })
  bob = await createMember(t, { firstName: 'Bob' })
  carol = await createMember(t, { firstName: 'Carol' })
  // One second apart so the newest-first order is unambiguous.
  const make = async (key: string, who: Member, body: Record<string, unknown>) => {
    t.clock.advance(1000)
    c[key] = await createCollection(t, who.token, body)
  }
  await make('c1', alice, {
    name: 'React dashboard',
    tags: ['React', 'Charts'],
    paymentFee: '100',
    meta: { name: 'alpha' },
  })
  await make('c2', alice, {
    name: 'Node API',
    description: 'A backend with Postgres',
    tags: ['Node.js', 'Postgres'],
    paymentFee: '500',
  })
  await make('c3', alice, {
    type: 'funding',
    name: 'Community garden',
    tags: ['Garden'],
    meta: { name: 'beta' },
  })
  await make('c4', bob, {
    name: 'Mobile app in React Native',
    tags: ['React', 'Mobile'],
    paymentFee: '250.75',
  })
  await make('c5', bob, { name: 'Secret React thing', tags: ['React'], paymentFee: '300', isPrivate: true })
  await make('c6', alice, { name: 'My private plan', paymentFee: '50', isPrivate: true })
  await make('c7', alice, {
    name: 'Dashboard phase two',
    tags: ['Charts'],
    paymentFee: '20',
    parent: c.c1._id,
  })
  await make('c8', bob, { name: 'Deleted React job', tags: ['React'] })
  await make('c9', bob, { name: 'Escrowed work', paymentFee: '1000', isPrivate: true })
  const gone = await t.req({ method: 'DELETE', url: `/v1/collection/${c.c8._id}`, token: bob.token })
  expect(gone.statusCode).toBe(200)
  // c9's escrow pays Alice and is paid: she sees it although it is Bob's private collection.
  await inTx(t, async (tx) => {
    await insertEscrowRow(tx, 'e'.repeat(24), c.c9._id, bob.id)
    await t.app.services.collections.markEscrow(tx, c.c9._id, {
      state: 'paid',
      escrowId: 'e'.repeat(24),
      receiverId: alice.id,
    })
  })
})
afterAll(() => t.close())

async function list(query: string, who: Member = alice) {
  const res = await t.req({
    method: 'GET',
    url: `/v1/collection${query ? `?${query}` : ''}`,
    token: who.token,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** The names of the collections a query returns, in order (c1…c9 keys). */
async function keys(query: string, who: Member = alice): Promise<string[]> {
  const body = await list(query, who)
  const byId = new Map(Object.entries(c).map(([k, v]) => [v._id, k]))
  return body.data.data.map((x: any) => byId.get(x._id))
}

describe('GET /v1/collection (#27): privacy', () => {
  it('lists public collections, the caller’s private ones and those whose escrow pays the caller, newest first', async () => {
    expect(await keys('')).toEqual(['c9', 'c7', 'c6', 'c4', 'c3', 'c2', 'c1'])
    expect(await keys('', bob)).toEqual(['c9', 'c7', 'c5', 'c4', 'c3', 'c2', 'c1'])
    expect(await keys('', carol)).toEqual(['c7', 'c4', 'c3', 'c2', 'c1'])
    // the unfiltered total counts what each may see; a collection made private leaves the others' count
    expect([
      (await list('')).data.total,
      (await list('', bob)).data.total,
      (await list('', carol)).data.total,
    ]).toEqual([7, 7, 5])
    const setPrivate = async (isPrivate: boolean) => {
      const res = await t.req({
        method: 'PATCH',
        url: `/v1/collection/${c.c3._id}`,
        token: alice.token,
        payload: { isPrivate },
      })
      expect(res.statusCode, res.body).toBe(200)
    }
    await setPrivate(true)
    expect([(await list('')).data.total, (await list('', carol)).data.total]).toEqual([7, 4])
    await setPrivate(false)
    expect((await list('', carol)).data.total).toBe(5)
  })

  it('counts a private collection once for a viewer who is its creator, receiver and invitee at once', async () => {
    const dave = await createMember(t, { firstName: 'Dave' })
    const erin = await createMember(t, { firstName: 'Erin' })
    const frank = await createMember(t, { firstName: 'Frank' })
    const mine = async (who: Member, name: string) =>
      (await createCollection(t, who.token, { name, isPrivate: true }))._id as string
    const both = await mine(erin, 'Received and invited')
    const invited = await mine(erin, 'Invited only')
    await mine(erin, 'Not shown to Dave')
    const ownInvited = await mine(dave, 'Own, self invited')
    const ownReceived = await mine(dave, 'Own, self received')
    const ownAll = await mine(dave, 'Own, received and invited')
    await inTx(t, async (tx) => {
      const set = (id: string, receiver: string | null, invitees: string[]) =>
        sql`update collections set receiver_id = ${receiver}, invitee_ids = ${invitees}::text[] where id = ${id}`.execute(
          tx,
        )
      await set(both, dave.id, [dave.id, frank.id])
      await set(invited, null, [frank.id, dave.id])
      await set(ownInvited, null, [dave.id])
      await set(ownReceived, dave.id, [])
      await set(ownAll, dave.id, [dave.id])
    })
    const seen = async (who: Member) => (await list('limit=100', who)).data
    const [forDave, forFrank] = [await seen(dave), await seen(frank)]
    const names = (page: any) => page.data.map((x: any) => x.name)
    expect(names(forDave)).toEqual(expect.arrayContaining(['Received and invited', 'Invited only']))
    expect(names(forDave)).not.toContain('Not shown to Dave')
    // Frank is invited to two of Erin's: Dave sees those two and his own three besides what Frank sees.
    expect(forDave.total).toBe(forDave.data.length)
    expect(forFrank.total).toBe(forFrank.data.length)
    expect(forDave.total).toBe(forFrank.total + 3)
  })

  it('answers the page envelope with full list items', async () => {
    const body = await list('meta.name=alpha')
    expect(body).toEqual({
      status: 'success',
      message: expect.any(String),
      data: {
        data: [
          fullForm(alice, {
            _id: c.c1._id,
            name: 'React dashboard',
            tagsData: ['React', 'Charts'],
            tags: c.c1.tags,
            paymentFee: 100,
            meta: { name: 'alpha' },
            totalChildCollectionsCount: 1,
            updatedAt: expect.any(String),
            collections: [c.c7._id],
            isBookmarked: false,
            bookmarkId: '',
          }),
        ],
        total: 1,
        pages: 1,
        page: 1,
        limit: 12,
      },
    })
  })

  it('needs a token (401)', async () => {
    expectError(await t.req({ method: 'GET', url: '/v1/collection' }), 401, 'UNAUTHENTICATED')
  })
})

describe('GET /v1/collection (#27): each filter alone', () => {
  it.each([
    ['type=funding', ['c3']],
    ['type=job', ['c9', 'c7', 'c6', 'c4', 'c2', 'c1']],
    ['type=none', []],
    ['status=ongoing', ['c9']],
    ['status=pending', ['c7', 'c6', 'c4', 'c3', 'c2', 'c1']],
    ['isPrivate=true', ['c9', 'c6']],
    ['isPrivate=false', ['c7', 'c4', 'c3', 'c2', 'c1']],
    ['price=100-300', ['c4', 'c1']],
    ['price=-50', ['c7', 'c6', 'c3']],
    ['price=500-', ['c9', 'c2']],
    ['price=250.75-250.75', ['c4']],
    ['price=0.5-99.99', ['c7', 'c6']],
    ['search=react', ['c4', 'c1']],
    ['search=REAC', ['c4', 'c1']],
    ['search=postgres', ['c2']],
    ['search=dash%20two', ['c7']],
    ['search=garden', ['c3']],
    ['search=charts', ['c7', 'c1']],
    ['search=mobile%20native', ['c4']],
    ['search=zzz', []],
    ['tags=react', ['c4', 'c1']],
    ['tags=React', ['c4', 'c1']],
    ['tags=react,postgres', ['c4', 'c2', 'c1']],
    ['tags=node.js', ['c2']],
    ['tags=unknown', []],
    ['meta.name=alpha', ['c1']],
    ['meta.name=beta', ['c3']],
    ['escrowPaid=true', ['c9']],
    ['escrowPaid=false', ['c7', 'c6', 'c4', 'c3', 'c2', 'c1']],
    ['parent=PARENT', ['c7']],
    ['creatorId=BOB', ['c9', 'c4']],
  ])('%s', async (query, expected) => {
    const q = query.replace('PARENT', c.c1._id).replace('BOB', bob.id)
    expect(await keys(q)).toEqual(expected)
    expect((await list(q)).data.total).toBe(expected.length)
  })

  it.each([
    'search=caf%C3%A9',
    'search=%E6%97%A5%E6%9C%AC%E8%AA%9E',
    "search=a%3Ab%7Cc%26!d%20'x'%20(y)%20%3C-%3E",
    'search=' + 'word%20'.repeat(30),
    'type=%27%3B%20drop%20table%20collections%3B--',
    'tags=%2C%2C%2C',
    'meta.name=%F0%9F%98%80',
  ])('odd input %s answers 200', async (query) => {
    await list(query)
  })

  it.each(['search=a%00b', 'type=%00', 'meta.name=x%00', 'tags=a%00'])(
    'a NUL in %s is 400',
    async (query) => {
      expectError(
        await t.req({ method: 'GET', url: `/v1/collection?${query}`, token: alice.token }),
        400,
        'VALIDATION_ERROR',
      )
    },
  )

  it('a search of symbols only does not filter', async () => {
    expect(await keys('search=%21%21')).toHaveLength(7)
  })

  it('creator=false gives the creator id; receiver=true adds the receiver summary or null', async () => {
    const plain = (await list('creator=false&type=funding')).data.data[0]
    expect(plain.creator).toBe(alice.id)
    expect(plain).not.toHaveProperty('receiver')
    const withReceiver = (await list('receiver=true&isPrivate=true')).data.data
    expect(withReceiver.map((x: any) => [x.creator, x.receiver])).toEqual([
      [summaryOf(bob), summaryOf(alice)],
      [summaryOf(alice), null],
    ])
    const both = (await list('receiver=true&creator=true&type=funding')).data.data[0]
    expect(both.creator).toEqual(summaryOf(alice))
    expect(both.receiver).toBeNull()
  })
})

describe('GET /v1/collection (#27): combined filters', () => {
  it.each([
    ['type=job&tags=react&price=200-', ['c4']],
    ['search=react&isPrivate=false&creatorId=ALICE', ['c1']],
    ['escrowPaid=true&isPrivate=true&status=ongoing&type=job', ['c9']],
    ['search=dashboard&tags=charts&price=-50', ['c7']],
    ['search=dashboard&tags=charts&price=-50&parent=PARENT', ['c7']],
    ['tags=react,garden&type=funding&meta.name=beta', ['c3']],
    ['search=react&tags=postgres', []],
  ])('%s', async (query, expected) => {
    const q = query.replace('ALICE', alice.id).replace('PARENT', c.c1._id)
    expect(await keys(q)).toEqual(expected)
  })
})

describe('GET /v1/collection (#27): bookmarks', () => {
  it('marks the caller’s bookmarked collections with isBookmarked and bookmarkId', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/bookmark',
      token: alice.token,
      payload: { type: 'collection', reference: c.c4._id },
    })
    expect(res.statusCode).toBe(200)
    const bookmarkId = res.json().data._id
    const items = (await list('tags=react')).data.data
    expect(items.map((x: any) => [x._id, x.isBookmarked, x.bookmarkId])).toEqual([
      [c.c4._id, true, bookmarkId],
      [c.c1._id, false, ''],
    ])
    // Bob did not bookmark it
    const asBob = (await list('tags=react', bob)).data.data
    expect(asBob.every((x: any) => x.isBookmarked === false && x.bookmarkId === '')).toBe(true)
  })
})

describe('GET /v1/collection (#27): pagination', () => {
  it('pages with limit and page and reports total and pages', async () => {
    const first = (await list('limit=2')).data
    expect(first).toMatchObject({ total: 7, pages: 4, page: 1, limit: 2 })
    expect(first.data.map((x: any) => x._id)).toEqual([c.c9._id, c.c7._id])
    expect(await keys('limit=2&page=2')).toEqual(['c6', 'c4'])
    expect(await keys('limit=2&page=4')).toEqual(['c1'])
    const beyond = (await list('limit=2&page=5')).data
    expect(beyond).toEqual({ data: [], total: 7, pages: 4, page: 5, limit: 2 })
    expect((await list('limit=100')).data.limit).toBe(100)
    expect((await list('limit=1')).data.pages).toBe(7)
    expect((await list('type=none')).data).toEqual({ data: [], total: 0, pages: 0, page: 1, limit: 12 })
  })

  it('reports the same total and pages on every page of a search by tags or words, and past its end', async () => {
    expect(await list('tags=react,postgres&limit=2')).toMatchObject({ data: { total: 3, pages: 2, page: 1 } })
    expect(await keys('tags=react,postgres&limit=2&page=2')).toEqual(['c1'])
    expect((await list('tags=react,postgres&limit=2&page=2')).data).toMatchObject({ total: 3, pages: 2 })
    expect((await list('tags=react,postgres&limit=2&page=5')).data).toEqual({
      data: [],
      total: 3,
      pages: 2,
      page: 5,
      limit: 2,
    })
    expect((await list('tags=unknown&search=anything')).data).toMatchObject({ data: [], total: 0, pages: 0 })
  })

  it('defaults to 12 per page', async () => {
    for (let i = 0; i < 12; i++)
      await createCollection(t, carol.token, { type: 'deliverable', name: `Bulk ${i}` })
    const body = (await list('type=deliverable')).data
    expect(body).toMatchObject({ total: 12, pages: 1, page: 1, limit: 12 })
    expect(body.data).toHaveLength(12)
    expect(body.data.map((x: any) => x.name)).toEqual(Array.from({ length: 12 }, (_, i) => `Bulk ${11 - i}`))
  })

  it.each([
    'limit=0',
    'limit=101',
    'limit=abc',
    'page=0',
    'page=-1',
    'page=1.5',
    'price=abc',
    'price=100',
    'price=-',
    'price=10-5',
    'price=1.234-',
    'price=1e3-',
    'escrowPaid=yes',
    'isPrivate=maybe',
    'creator=2',
    'parent=not-an-id',
    'creatorId=123',
    'unknown=1',
    `tags=${Array.from({ length: 21 }, (_, i) => `t${i}`).join(',')}`,
  ])('refuses %s with 400', async (query) => {
    expectError(
      await t.req({ method: 'GET', url: `/v1/collection?${query}`, token: alice.token }),
      400,
      'VALIDATION_ERROR',
    )
  })
})
