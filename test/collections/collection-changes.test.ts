// Update and delete of collections (#28, #29), the service API the escrow feature uses, and the
// OpenAPI of the collection operations (create and get are in collections.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import {
  anyId,
  collectionFlows,
  createCollection,
  createMember,
  dateIn,
  expectError,
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

const { get, patch, del, entryCount, escrow } = collectionFlows(() => t)

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
    expectError(await patch(alice.token, c._id, { name: 'too late' }), 409, 'COLLECTION_LOCKED')
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
    expectError(await del(alice.token, c._id), 409, 'COLLECTION_ESCROW_UNRELEASED')
    await escrow(c._id, 'released')
    expect((await del(alice.token, c._id)).statusCode).toBe(200)

    const parent = await createCollection(t, alice.token)
    const child = await createCollection(t, alice.token, { parent: parent._id })
    await escrow(child._id, 'paid', bob.id)
    expectError(await del(alice.token, parent._id), 409, 'COLLECTION_ESCROW_UNRELEASED')
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
      name: item.name,
      description: item.description,
      type: item.type,
      status: item.status,
      isFundingRequest: true,
      recipientCompletedJob: item.recipientCompletedJob,
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
    ).rejects.toMatchObject({ code: 'COLLECTION_HAS_ESCROW' })
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
    ).rejects.toMatchObject({ code: 'ESCROW_ALREADY_PAID' })
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
