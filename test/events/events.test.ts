// Domain events: one row per change, written and fed to subscribers in the change's transaction.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeAhead } from '../../src/db/ahead.ts'
import { sqlWithWrites } from '../../src/db/compose.ts'
import type { DomainEvent } from '../../src/modules/events/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

let t: TestApp
let alice: TestUser
let bob: TestUser
const seen: DomainEvent[] = []
let db: TestApp['database']['db']
const taken: { id: string; writes: number; again: number; seenBySubscriber?: boolean }[] = []
/** A keyless event of no one's concern but the subscribers', told apart by its collection id. */
const delivered = (collectionId: string) => ({
  type: 'collection.delivered' as const,
  actorId: alice.id,
  audience: [],
  data: { collectionId },
})
const eventRow = (ex: TestApp['database']['db'], id: string) =>
  ex.selectFrom('events').select(['id', 'type']).where('id', '=', id).executeTakeFirst()

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
  // A subscriber that makes the event's row with a statement of its own, when asked to.
  t.app.services.events.subscribe('test.taker', async (tx, event, writes) => {
    if ((event.data as { collectionId?: string }).collectionId !== 'take') return
    const mine = writes.take()
    taken.push({ id: event.id, writes: mine.length, again: writes.take().length })
    await sqlWithWrites(mine, sql`select 1`).execute(tx)
    taken[taken.length - 1]!.seenBySubscriber = !!(await eventRow(tx, event.id))
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

  it('an event without a key is written by the statement of the subscriber that takes it, once', async () => {
    const ev = await db.transaction().execute(async (tx) => {
      const e = await t.app.services.events.emit(tx, delivered('take'))
      expect(await eventRow(tx, e!.id)).toEqual({ id: e!.id, type: 'collection.delivered' })
      return e!
    })
    expect(taken).toEqual([{ id: ev.id, writes: 1, again: 0, seenBySubscriber: true }])
    expect(await eventRow(db, ev.id)).toEqual({ id: ev.id, type: 'collection.delivered' })
  })

  it('an event no subscriber wrote is written at the end of the emit', async () => {
    const ev = await db.transaction().execute(async (tx) => {
      const e = await t.app.services.events.emit(tx, delivered('nobody takes it'))
      expect(await eventRow(tx, e!.id)).toBeDefined()
      return e!
    })
    expect(await eventRow(db, ev.id)).toBeDefined()
  })

  it('emitForStatement leaves the event to the caller’s next statement, which rolls back with the change', async () => {
    const input = delivered('for the caller')
    const made = await db.transaction().execute(async (tx) => {
      const done = (await t.app.services.events.emitForStatement(tx, input))!
      // The subscribers ran; nothing wrote the event yet.
      expect(seen.some((e) => e.id === done.event.id)).toBe(true)
      expect(await eventRow(tx, done.event.id)).toBeUndefined()
      expect(done.writes).toHaveLength(1)
      await writeAhead(tx, done.writes)
      expect(await eventRow(tx, done.event.id)).toBeDefined()
      return done.event
    })
    expect(await eventRow(db, made.id)).toBeDefined()
    let lost = ''
    await expect(
      db.transaction().execute(async (tx) => {
        const done = (await t.app.services.events.emitForStatement(tx, input))!
        lost = done.event.id
        await writeAhead(tx, done.writes)
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await eventRow(db, lost)).toBeUndefined()
  })

  it('refuses a second subscriber under the same name', () => {
    expect(() => t.app.services.events.subscribe('test.recorder', async () => {})).toThrow(
      /already registered/,
    )
  })
})
