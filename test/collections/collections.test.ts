// Create, get, update and delete of collections (#26, #28–#30), child collections, and the
// service API the escrow feature uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  anyId,
  createCollection,
  createMember,
  dateIn,
  expectError,
  fullForm,
  insertEscrowRow,
  inTx,
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

const post = (token: string | undefined, payload: unknown) =>
  t.req({ method: 'POST', url: '/v1/collection', payload: payload as object, ...(token ? { token } : {}) })
const get = (token: string | undefined, id: string) =>
  t.req({ method: 'GET', url: `/v1/collection/${id}`, ...(token ? { token } : {}) })
const patch = (token: string | undefined, id: string, payload: unknown) =>
  t.req({
    method: 'PATCH',
    url: `/v1/collection/${id}`,
    payload: payload as object,
    ...(token ? { token } : {}),
  })
const del = (token: string | undefined, id: string) =>
  t.req({ method: 'DELETE', url: `/v1/collection/${id}`, ...(token ? { token } : {}) })

async function entryCount(key: string): Promise<number> {
  const row = await t.database.db
    .selectFrom('tags')
    .select('entryCount')
    .where('key', '=', key)
    .executeTakeFirst()
  return row?.entryCount ?? -1
}

/** Links an escrow to a collection and moves it to `state` through the escrow-facing API. */
async function escrow(id: string, state: 'waiting' | 'paid' | 'released' | 'cancelled', receiverId?: string) {
  const escrowId = `e${id.slice(1)}`
  await inTx(t, async (tx) => {
    const { creatorId } = await tx
      .selectFrom('collections')
      .select('creatorId')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    await insertEscrowRow(tx, escrowId, id, creatorId)
    await t.app.services.collections.markEscrow(tx, id, {
      state,
      escrowId,
      ...(receiverId ? { receiverId } : {}),
    })
  })
}

describe('POST /v1/collection (#26)', () => {
  it('answers 200 with the full Collection form: pending, awaiting, zero counts, creator summary', async () => {
    const res = await post(alice.token, { type: 'job', name: 'A job', description: 'Some work' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: fullForm(alice) })
  })

  it('stores every optional field; paymentFee is a number; tags are Tag objects; tagsData as submitted', async () => {
    const date = dateIn(10)
    const res = await post(alice.token, {
      type: 'job',
      name: '  Build a dashboard ',
      category: 'design',
      description: 'Charts and tables',
      paymentFee: '1250.50',
      isPrivate: true,
      deliveryDate: date,
      tags: ['React', ' react ', 'Type Script'],
      isParentFunded: true,
      meta: { name: 'dash', nested: { a: [1, 2] } },
    })
    expect(res.statusCode, res.body).toBe(200)
    const data = res.json().data
    expect(data).toEqual(
      fullForm(alice, {
        name: 'Build a dashboard',
        category: 'design',
        description: 'Charts and tables',
        paymentFee: 1250.5,
        isPrivate: true,
        deliveryDate: `${date}T00:00:00.000Z`,
        tagsData: ['React', ' react ', 'Type Script'],
        tags: [
          {
            _id: anyId,
            name: 'React',
            key: 'react',
            color: expect.stringMatching(/^#[0-9a-f]{6}$/),
            type: 'tags',
          },
          {
            _id: anyId,
            name: 'Type Script',
            key: 'type-script',
            color: expect.stringMatching(/^#[0-9a-f]{6}$/),
            type: 'tags',
          },
        ],
        isParentFunded: true,
        meta: { name: 'dash', nested: { a: [1, 2] } },
      }),
    )
    expect(await entryCount('type-script')).toBe(1)
    // the fee is kept exactly as NUMERIC
    const row = await t.database.db
      .selectFrom('collections')
      .select('paymentFee')
      .where('id', '=', data._id)
      .executeTakeFirstOrThrow()
    expect(row.paymentFee).toBe('1250.50')
  })

  it('accepts today as deliveryDate', async () => {
    const c = await createCollection(t, alice.token, { deliveryDate: dateIn(0) })
    expect(c.deliveryDate).toBe(`${dateIn(0)}T00:00:00.000Z`)
  })

  it.each([
    ['no type', { name: 'n', description: 'd' }],
    ['no name', { type: 'job', description: 'd' }],
    ['no description', { type: 'job', name: 'n' }],
    ['blank name', { type: 'job', name: '   ', description: 'd' }],
    ['unknown field', { type: 'job', name: 'n', description: 'd', owner: 'x' }],
    ['bad date format', { type: 'job', name: 'n', description: 'd', deliveryDate: '21/11/2030' }],
    ['impossible date', { type: 'job', name: 'n', description: 'd', deliveryDate: '2030-02-30' }],
    ['past date', { type: 'job', name: 'n', description: 'd', deliveryDate: dateIn(-1) }],
    [
      'paymentFee as a number with 3 decimals',
      { type: 'job', name: 'n', description: 'd', paymentFee: 1.005 },
    ],
    ['paymentFee with 3 decimals', { type: 'job', name: 'n', description: 'd', paymentFee: '1.005' }],
    ['negative paymentFee', { type: 'job', name: 'n', description: 'd', paymentFee: '-5' }],
    ['tags not an array', { type: 'job', name: 'n', description: 'd', tags: 'react' }],
    ['a tag of symbols', { type: 'job', name: 'n', description: 'd', tags: ['!!!'] }],
    [
      'too many tags',
      { type: 'job', name: 'n', description: 'd', tags: Array.from({ length: 31 }, (_, i) => `t${i}`) },
    ],
    ['meta not an object', { type: 'job', name: 'n', description: 'd', meta: 'x' }],
    ['meta over 4 KiB', { type: 'job', name: 'n', description: 'd', meta: { blob: 'x'.repeat(5000) } }],
    ['parent not an id', { type: 'job', name: 'n', description: 'd', parent: 'nope' }],
    ['isPrivate as a string', { type: 'job', name: 'n', description: 'd', isPrivate: 'true' }],
    ['a NUL in the name', { type: 'job', name: 'a\u0000b', description: 'd' }],
    ['a NUL in a tag', { type: 'job', name: 'n', description: 'd', tags: ['a\u0000'] }],
    ['a NUL in meta', { type: 'job', name: 'n', description: 'd', meta: { 'k\u0000': 'v\u0000' } }],
    ['a fee over 12 digits', { type: 'job', name: 'n', description: 'd', paymentFee: '1234567890123' }],
  ])('refuses %s with 400 VALIDATION_ERROR', async (_label, body) => {
    expectError(await post(alice.token, body), 400, 'VALIDATION_ERROR')
  })

  it('refuses malformed JSON with 400', async () => {
    const res = await t.req({
      method: 'POST',
      url: '/v1/collection',
      token: alice.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"type":',
    })
    expectError(res, 400, 'VALIDATION_ERROR')
  })

  it('refuses a request without a token (401)', async () => {
    expectError(await post(undefined, { type: 'job', name: 'n', description: 'd' }), 401, 'UNAUTHENTICATED')
    const bad = await t.req({
      method: 'POST',
      url: '/v1/collection',
      headers: { authorization: 'Bearer nope.nope.nope' },
      payload: { type: 'job', name: 'n', description: 'd' },
    })
    expectError(bad, 401, 'UNAUTHENTICATED')
  })
})

describe('child collections', () => {
  it('creates a child under the caller’s own collection and counts it on the parent', async () => {
    const parent = await createCollection(t, alice.token, { name: 'Parent' })
    const child = await createCollection(t, alice.token, { name: 'Child', parent: parent._id })
    expect(child).toEqual(fullForm(alice, { name: 'Child', parent: parent._id }))
    const res = await get(alice.token, parent._id)
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual(
      fullForm(alice, {
        _id: parent._id,
        name: 'Parent',
        totalChildCollectionsCount: 1,
        collections: [fullForm(alice, { _id: child._id, name: 'Child', parent: parent._id })],
      }),
    )
  })

  it('refuses an unknown parent (404)', async () => {
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: 'f'.repeat(24) }),
      404,
      'NOT_FOUND',
    )
  })

  it('refuses someone else’s public parent (403) and hides someone else’s private parent (404)', async () => {
    const pub = await createCollection(t, bob.token)
    const priv = await createCollection(t, bob.token, { isPrivate: true })
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: pub._id }),
      403,
      'FORBIDDEN',
    )
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: priv._id }),
      404,
      'NOT_FOUND',
    )
  })

  it('refuses a deleted parent (404) and a child as parent (422)', async () => {
    const gone = await createCollection(t, alice.token)
    expect((await del(alice.token, gone._id)).statusCode).toBe(200)
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: gone._id }),
      404,
      'NOT_FOUND',
    )
    const parent = await createCollection(t, alice.token)
    const child = await createCollection(t, alice.token, { parent: parent._id })
    expectError(
      await post(alice.token, { type: 'job', name: 'n', description: 'd', parent: child._id }),
      422,
      'BUSINESS_RULE',
    )
  })
})

describe('GET /v1/collection/{id} (#30)', () => {
  it('shows a public collection to anyone signed in', async () => {
    const c = await createCollection(t, alice.token, { paymentFee: '99.99' })
    const res = await get(bob.token, c._id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      status: 'success',
      message: expect.any(String),
      data: fullForm(alice, { _id: c._id, paymentFee: 99.99 }),
    })
  })

  it('hides someone else’s private collection (404) but shows it to its creator and its receiver', async () => {
    const carol = await createMember(t, { firstName: 'Carol' })
    const c = await createCollection(t, alice.token, { isPrivate: true })
    expectError(await get(bob.token, c._id), 404, 'NOT_FOUND')
    expect((await get(alice.token, c._id)).statusCode).toBe(200)
    await escrow(c._id, 'waiting', carol.id)
    expect((await get(carol.token, c._id)).statusCode).toBe(200)
    expectError(await get(bob.token, c._id), 404, 'NOT_FOUND')
  })

  it('hides private children of someone else from a viewer of the public parent', async () => {
    const parent = await createCollection(t, alice.token)
    const open = await createCollection(t, alice.token, { parent: parent._id, name: 'open' })
    await createCollection(t, alice.token, { parent: parent._id, name: 'hidden', isPrivate: true })
    const asBob = (await get(bob.token, parent._id)).json().data
    expect(asBob.collections.map((c: any) => c._id)).toEqual([open._id])
    expect(asBob.totalChildCollectionsCount).toBe(2)
    const asAlice = (await get(alice.token, parent._id)).json().data
    expect(asAlice.collections.map((c: any) => c.name)).toEqual(['open', 'hidden'])
  })

  it('answers 404 for unknown and deleted collections, 400 for a malformed id, 401 without a token', async () => {
    expectError(await get(alice.token, 'a'.repeat(24)), 404, 'NOT_FOUND')
    const c = await createCollection(t, alice.token)
    await del(alice.token, c._id)
    expectError(await get(alice.token, c._id), 404, 'NOT_FOUND')
    expectError(await get(alice.token, 'xyz'), 400, 'VALIDATION_ERROR')
    expectError(await get(undefined, c._id), 401, 'UNAUTHENTICATED')
  })
})

describe('PATCH /v1/collection/{id} (#29)', () => {
  it('updates the fields and answers the older update shape with message Accepted', async () => {
    const c = await createCollection(t, alice.token, { name: 'Old', tags: ['Rust'], paymentFee: '10' })
    const child = await createCollection(t, alice.token, { parent: c._id })
    const date = dateIn(30)
    const res = await patch(alice.token, c._id, {
      type: 'gig',
      name: 'Shiny New Name',
      category: 'dev',
      description: 'New description',
      paymentFee: '2500.5',
      isPrivate: true,
      deliveryDate: date,
      tags: ['Go', 'Postgres'],
    })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toEqual({
      status: 'success',
      message: 'Accepted',
      data: {
        _id: c._id,
        name: 'Shiny New Name',
        category: 'dev',
        description: 'New description',
        equity: '',
        collections: [child._id],
        type: 'gig',
        owners: [],
        invites: [],
        applications: [],
        skillData: ['Go', 'Postgres'],
        skills: [anyId, anyId],
        status: 'pending',
        inviteAccepted: false,
        payoutStatus: 'awaiting',
        paymentStatus: 'awaiting',
        feePayoutStatus: 'awaiting',
        balanceStatus: 'awaiting',
        paymentFee: '2500.50',
        isPrivate: true,
        deliveryDate: `${date}T00:00:00.000Z`,
        recipientCompletedJob: false,
        score: 0,
        progress: 0,
        isDeleted: false,
        createdAt: c.createdAt,
        updatedAt: isoTimestamp,
        slug: `shiny-new-name-${c._id.slice(-6)}`,
        __v: 1,
      },
    })
    // the full form shows the same state
    const full = (await get(alice.token, c._id)).json().data
    expect(full.tags.map((x: any) => x._id)).toEqual(body.data.skills)
    expect(full.tagsData).toEqual(['Go', 'Postgres'])
    expect(full.paymentFee).toBe(2500.5)
    expect(await entryCount('rust')).toBe(0)
    expect(await entryCount('postgres')).toBe(1)
  })

  it('changing only some fields keeps the others', async () => {
    const c = await createCollection(t, alice.token, { name: 'Keep', tags: ['Elm'], paymentFee: '7.5' })
    const res = await patch(alice.token, c._id, { description: 'Only this' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({
      name: 'Keep',
      description: 'Only this',
      skillData: ['Elm'],
      paymentFee: '7.50',
    })
  })

  it('finds a collection by its new name and no longer by the old one', async () => {
    const c = await createCollection(t, alice.token, { name: 'Zanzibarian thing' })
    await patch(alice.token, c._id, { name: 'Quokkaesque thing' })
    const found = (q: string) =>
      t
        .req({ method: 'GET', url: `/v1/collection?search=${q}`, token: alice.token })
        .then((r) => r.json().data.total)
    expect(await found('zanzibar')).toBe(0)
    expect(await found('quokka')).toBe(1)
  })

  it('refuses a non-creator (403), hides another’s private one (404), needs a token (401)', async () => {
    const pub = await createCollection(t, alice.token)
    const priv = await createCollection(t, alice.token, { isPrivate: true })
    expectError(await patch(bob.token, pub._id, { name: 'x' }), 403, 'FORBIDDEN')
    expectError(await patch(bob.token, priv._id, { name: 'x' }), 404, 'NOT_FOUND')
    expectError(await patch(undefined, pub._id, { name: 'x' }), 401, 'UNAUTHENTICATED')
    expectError(await patch(alice.token, 'b'.repeat(24), { name: 'x' }), 404, 'NOT_FOUND')
  })

  it.each([
    ['an empty body', {}],
    ['a past deliveryDate', { deliveryDate: dateIn(-2) }],
    ['a bad paymentFee', { paymentFee: '12,50' }],
    ['an unknown field', { status: 'done' }],
    ['a blank name', { name: ' ' }],
  ])('refuses %s with 400', async (_label, body) => {
    const c = await createCollection(t, alice.token)
    expectError(await patch(alice.token, c._id, body), 400, 'VALIDATION_ERROR')
  })

  it('is refused with 409 once the escrow is paid', async () => {
    const c = await createCollection(t, alice.token)
    await escrow(c._id, 'waiting', bob.id)
    expect((await patch(alice.token, c._id, { name: 'still fine' })).statusCode).toBe(200)
    await escrow(c._id, 'paid')
    expectError(await patch(alice.token, c._id, { name: 'too late' }), 409, 'CONFLICT')
  })
})

describe('DELETE /v1/collection/{id} (#28)', () => {
  it('soft-deletes the collection and its children and releases their tag counts', async () => {
    const parent = await createCollection(t, alice.token, { tags: ['Haskell'] })
    const child = await createCollection(t, alice.token, { parent: parent._id, tags: ['Haskell', 'Ocaml'] })
    expect(await entryCount('haskell')).toBe(2)
    const res = await del(alice.token, parent._id)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'success', message: expect.any(String), data: {} })
    expect(await entryCount('haskell')).toBe(0)
    expect(await entryCount('ocaml')).toBe(0)
    expectError(await get(alice.token, child._id), 404, 'NOT_FOUND')
    const rows = await t.database.db
      .selectFrom('collections')
      .select(['id', 'isDeleted', 'deletedAt'])
      .where('id', 'in', [parent._id, child._id])
      .execute()
    expect(rows.every((r) => r.isDeleted && r.deletedAt instanceof Date)).toBe(true)
    expectError(await del(alice.token, parent._id), 404, 'NOT_FOUND')
  })

  it('deleting a child lowers its parent’s counts', async () => {
    const parent = await createCollection(t, alice.token)
    const child = await createCollection(t, alice.token, { parent: parent._id })
    await escrow(child._id, 'paid', bob.id)
    await escrow(child._id, 'released')
    expect((await get(alice.token, parent._id)).json().data).toMatchObject({
      totalChildCollectionsCount: 1,
      totalChildCollectionEscrowCount: 1,
    })
    expect((await del(alice.token, child._id)).statusCode).toBe(200)
    expect((await get(alice.token, parent._id)).json().data).toMatchObject({
      totalChildCollectionsCount: 0,
      totalChildCollectionEscrowCount: 0,
      collections: [],
    })
  })

  it('is refused with 409 while a paid escrow (on it or a child) is not released', async () => {
    const c = await createCollection(t, alice.token)
    await escrow(c._id, 'paid', bob.id)
    expectError(await del(alice.token, c._id), 409, 'CONFLICT')
    await escrow(c._id, 'released')
    expect((await del(alice.token, c._id)).statusCode).toBe(200)

    const parent = await createCollection(t, alice.token)
    const child = await createCollection(t, alice.token, { parent: parent._id })
    await escrow(child._id, 'paid', bob.id)
    expectError(await del(alice.token, parent._id), 409, 'CONFLICT')
    expect((await get(alice.token, child._id)).statusCode).toBe(200)
  })

  it('refuses a non-creator (403), hides another’s private one (404), needs a token (401)', async () => {
    const pub = await createCollection(t, alice.token)
    const priv = await createCollection(t, alice.token, { isPrivate: true })
    expectError(await del(bob.token, pub._id), 403, 'FORBIDDEN')
    expectError(await del(bob.token, priv._id), 404, 'NOT_FOUND')
    expectError(await del(undefined, pub._id), 401, 'UNAUTHENTICATED')
    // the receiver of a private collection's escrow sees it but may not delete it
    await escrow(priv._id, 'waiting', bob.id)
    expectError(await del(bob.token, priv._id), 403, 'FORBIDDEN')
    expect((await get(alice.token, pub._id)).statusCode).toBe(200)
  })
})

describe('the escrow-facing service API', () => {
  it('createForEscrow makes a collection with its receiver and escrow; markEscrow moves its state', async () => {
    const escrowId = 'c'.repeat(24)
    const id = await inTx(t, (tx) =>
      t.app.services.collections
        .createForEscrow(tx, alice.id, {
          name: 'Logo design',
          description: 'A logo',
          paymentFee: '300',
          deliveryDate: dateIn(5),
          isPrivate: true,
          isFundingRequest: true,
          receiverId: bob.id,
          escrowId,
        })
        .then(async (created) => {
          await insertEscrowRow(tx, escrowId, created, alice.id)
          return created
        }),
    )
    const asBob = await t.req({
      method: 'GET',
      url: `/v1/collection?receiver=true&escrowPaid=false&isPrivate=true`,
      token: bob.token,
    })
    const item = asBob.json().data.data.find((c: any) => c._id === id)
    expect(item).toMatchObject({
      name: 'Logo design',
      paymentFee: 300,
      isFundingRequest: true,
      escrowPaid: false,
      receiver: summaryOf(bob),
      creator: summaryOf(alice),
    })
    expect(await t.app.services.collections.escrowState(t.database.db, id)).toEqual({
      id,
      creatorId: alice.id,
      receiverId: bob.id,
      escrowId,
      escrowStatus: 'waiting',
      escrowPaid: false,
      paymentFee: '300.00',
      parentId: null,
      isPrivate: true,
    })
    await inTx(t, (tx) => t.app.services.collections.markEscrow(tx, id, { state: 'paid', escrowId }))
    expect((await get(alice.token, id)).json().data).toMatchObject({ status: 'ongoing', escrowPaid: true })
    await inTx(t, (tx) => t.app.services.collections.markEscrow(tx, id, { state: 'released', escrowId }))
    await inTx(t, (tx) => t.app.services.collections.recordPayout(tx, id, 'payout', 'failed'))
    await inTx(t, (tx) => t.app.services.collections.recordPayout(tx, id, 'payout', 'paid', 'd'.repeat(24)))
    await inTx(t, (tx) => t.app.services.collections.recordPayout(tx, id, 'payout', 'paid', 'd'.repeat(24)))
    await inTx(t, (tx) => t.app.services.collections.recordPayout(tx, id, 'platformFee', 'failed'))
    expect((await get(alice.token, id)).json().data).toMatchObject({
      status: 'completed',
      escrowPaid: true,
      payoutStatus: 'paid',
      failedPayoutCount: 1,
      platformFeePayoutStatus: 'failed',
      failedPlatformFeePayoutCount: 1,
      feePayoutStatus: 'awaiting',
      payoutTransactions: ['d'.repeat(24)],
    })
  })

  it('markEscrow refuses a second escrow (409), cancelling a paid one (409), unknown collections (404)', async () => {
    const c = await createCollection(t, alice.token)
    await inTx(t, async (tx) => {
      await insertEscrowRow(tx, '1'.repeat(24), c._id, alice.id)
      await insertEscrowRow(tx, '2'.repeat(24), c._id, alice.id)
      await t.app.services.collections.markEscrow(tx, c._id, { state: 'waiting', escrowId: '1'.repeat(24) })
    })
    await expect(
      inTx(t, (tx) =>
        t.app.services.collections.markEscrow(tx, c._id, { state: 'waiting', escrowId: '2'.repeat(24) }),
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT' })
    // a cancelled escrow frees the collection for a new one
    await inTx(t, (tx) =>
      t.app.services.collections.markEscrow(tx, c._id, { state: 'cancelled', escrowId: '1'.repeat(24) }),
    )
    await inTx(t, (tx) =>
      t.app.services.collections.markEscrow(tx, c._id, { state: 'paid', escrowId: '2'.repeat(24) }),
    )
    await expect(
      inTx(t, (tx) =>
        t.app.services.collections.markEscrow(tx, c._id, { state: 'cancelled', escrowId: '2'.repeat(24) }),
      ),
    ).rejects.toMatchObject({ code: 'CONFLICT' })
    await expect(
      inTx(t, (tx) =>
        t.app.services.collections.markEscrow(tx, '3'.repeat(24), {
          state: 'paid',
          escrowId: '4'.repeat(24),
        }),
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('OpenAPI', () => {
  it('documents every collection and bookmark operation with bearer security', async () => {
    const res = await t.req({ method: 'GET', url: '/openapi.json' })
    expect(res.statusCode).toBe(200)
    const doc = res.json()
    const ops: Record<string, string> = {
      createCollection: 'post /v1/collection',
      listCollections: 'get /v1/collection',
      getCollection: 'get /v1/collection/{id}',
      updateCollection: 'patch /v1/collection/{id}',
      deleteCollection: 'delete /v1/collection/{id}',
      createBookmark: 'post /v1/bookmark',
      listBookmarks: 'get /v1/bookmark',
      deleteBookmark: 'delete /v1/bookmark/{id}',
    }
    for (const [operationId, where] of Object.entries(ops)) {
      const [method, path] = where.split(' ') as [string, string]
      const op = doc.paths[path]?.[method]
      expect(op?.operationId, where).toBe(operationId)
      expect(op.security).toEqual([{ bearer: [] }])
      // Each operation lists the errors it answers: 404 where a record can be missing.
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401']))
      if (where.includes('{id}') || operationId === 'createBookmark')
        expect(op.responses).toHaveProperty('404')
    }
  })
})
