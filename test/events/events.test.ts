// Domain events: one row per change, written and fed to subscribers in the change's transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DomainEvent } from '../../src/modules/events/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
const seen: DomainEvent[] = []
let db: TestApp['database']['db']

beforeAll(async () => {
  t = await createTestApp()
  db = t.database.db
  alice = await createUser(t)
  bob = await createUser(t)
  t.app.services.events.subscribe('test.recorder', async (tx, event) => {
    seen.push(event)
    // a subscriber writes rows in the emitting transaction
    await tx
      .insertInto('jobs')
      .values({
        id: event.id,
        kind: 'test.never',
        payload: JSON.stringify({ eventId: event.id }),
        runAt: new Date(),
      })
      .execute()
    if ((event.data as { collectionId?: string }).collectionId === 'explode')
      throw new Error('subscriber failed')
  })
})
afterAll(() => t?.close())

describe('events', () => {
  it('writes one row with its audience and data, and runs subscribers in the same transaction', async () => {
    const stored = await db.transaction().execute((tx) =>
      t.app.services.events.emit(tx, {
        type: 'invite.sent',
        actorId: alice.id,
        audience: [bob.id, bob.id, alice.id],
        collectionId: null,
        data: { inviteId: 'i1', collectionId: 'c1', receiverId: bob.id },
      }),
    )
    expect(stored).not.toBeNull()
    const row = await db
      .selectFrom('events')
      .selectAll()
      .where('id', '=', stored!.id)
      .executeTakeFirstOrThrow()
    expect(row).toMatchObject({
      type: 'invite.sent',
      actorId: alice.id,
      audience: [bob.id, alice.id],
      isPublic: false,
      data: { inviteId: 'i1', collectionId: 'c1', receiverId: bob.id },
    })
    expect(seen.filter((e) => e.id === stored!.id)).toHaveLength(1)
    const job = await db.selectFrom('jobs').select('id').where('id', '=', stored!.id).executeTakeFirst()
    expect(job).toBeDefined()
  })

  it('a rolled-back change leaves neither the event nor what subscribers wrote', async () => {
    let id = ''
    await expect(
      db.transaction().execute(async (tx) => {
        const ev = await t.app.services.events.emit(tx, {
          type: 'collection.delivered',
          actorId: bob.id,
          audience: [alice.id],
          data: { collectionId: 'c2' },
        })
        id = ev!.id
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await db.selectFrom('events').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined()
    expect(await db.selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined()
  })

  it('a subscriber that fails rolls the change back with it', async () => {
    const before = await db
      .selectFrom('events')
      .select(db.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    await expect(
      db.transaction().execute((tx) =>
        t.app.services.events.emit(tx, {
          type: 'collection.completed',
          actorId: alice.id,
          audience: [bob.id],
          data: { collectionId: 'explode' },
        }),
      ),
    ).rejects.toThrow('subscriber failed')
    const after = await db
      .selectFrom('events')
      .select(db.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(after.n)).toBe(Number(before.n))
  })

  it('a change reported twice under one key is one event, and subscribers run once', async () => {
    const emit = () =>
      db.transaction().execute((tx) =>
        t.app.services.events.emit(tx, {
          type: 'deposit.credited',
          actorId: null,
          audience: [alice.id],
          data: { transactionId: 't1', coin: 'USDC', amount: '5', txHash: null },
          key: 'deposit:t1',
        }),
      )
    const first = await emit()
    const second = await emit()
    expect(first).not.toBeNull()
    expect(second).toBeNull()
    const rows = await db.selectFrom('events').select('id').where('key', '=', 'deposit:t1').execute()
    expect(rows).toHaveLength(1)
    expect(seen.filter((e) => e.type === 'deposit.credited')).toHaveLength(1)
  })

  it('an empty audience is stored as an empty list', async () => {
    const ev = await db.transaction().execute((tx) =>
      t.app.services.events.emit(tx, {
        type: 'collection.created',
        actorId: alice.id,
        audience: [],
        isPublic: true,
        data: { collectionId: 'c3', title: 'Logo', type: 'job' },
      }),
    )
    const row = await db
      .selectFrom('events')
      .select(['audience', 'isPublic'])
      .where('id', '=', ev!.id)
      .executeTakeFirstOrThrow()
    expect(row).toEqual({ audience: [], isPublic: true })
  })

  it('refuses a second subscriber under the same name', () => {
    expect(() => t.app.services.events.subscribe('test.recorder', async () => {})).toThrow(
      /already registered/,
    )
  })
})
