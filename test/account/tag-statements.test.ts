// Tags are found or created in one statement: new keys inserted under their seeded parents (in the
// taxonomy's order), existing keys answered as they are, in submission order, without waiting for
// another transaction changing their rows (PostgreSQL). Both drivers.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TagLabels, tagService } from '../../src/modules/account/tags.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { heldOpen } from '../helpers/held-transaction.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const parent = (key: string) =>
  t.database.db
    .selectFrom('tags')
    .select('id')
    .where('key', '=', key)
    .where('isParent', '=', true)
    .executeTakeFirstOrThrow()

async function ensure(names: string[]) {
  const before = t.database.queryCount()
  const rows = await tagService.ensure(t.database.db, names)
  return { rows, statements: t.database.queryCount() - before }
}

describe('tagService.ensure', () => {
  it('creates new tags under their parents in one statement, in submission order', async () => {
    const { rows, statements } = await ensure(['Rust', 'Quilting Zq', 'SQL'])
    expect(statements).toBe(1)
    expect(rows.map((r) => [r.key, r.name])).toEqual([
      ['rust', 'Rust'],
      ['quilting-zq', 'Quilting Zq'],
      ['sql', 'SQL'],
    ])
    const [development, blockchain, data] = await Promise.all(
      ['development', 'blockchain', 'data'].map((k) => parent(k).then((p) => p.id)),
    )
    expect(rows[0]!.categories).toEqual([development, blockchain])
    expect(rows[1]!.categories).toEqual([])
    expect(rows[2]!.categories).toEqual([development, data])
    expect(rows.every((r) => r.entryCount === 0 && r.isParent === false && r.type === 'tags')).toBe(true)
  })

  it('answers existing tags unchanged, mixed with new ones, still in one statement', async () => {
    const first = await ensure(['Rust'])
    const { rows, statements } = await ensure(['  rust ', 'Brand New Tag', 'RUST', 'Rust'])
    expect(statements).toBe(1)
    expect(rows.map((r) => r.key)).toEqual(['rust', 'brand-new-tag'])
    expect(rows[0]).toEqual(first.rows[0])
    expect(rows[0]!.name).toBe('Rust')
  })

  it('gives twenty concurrent callers of the same new tags the same rows', async () => {
    const names = ['Concurrent A', 'Concurrent B', 'Solidity']
    const all = await Promise.all(Array.from({ length: 20 }, () => tagService.ensure(t.database.db, names)))
    const ids = all.map((rows) => rows.map((r) => r.id).join())
    expect(new Set(ids).size).toBe(1)
    const stored = await t.database.db
      .selectFrom('tags')
      .select('key')
      .where('key', 'in', ['concurrent-a', 'concurrent-b', 'solidity'])
      .execute()
    expect(stored).toHaveLength(3)
  })

  it.runIf(process.env.TEST_DB === 'postgres')(
    'finds an existing tag without waiting for a transaction that is changing its row',
    async () => {
      await ensure(['Waitless'])
      const db = t.database.db
      // Another save's entry counts: the tag's row changed by a transaction still open.
      const holder = await heldOpen(db, (tx) =>
        tx
          .updateTable('tags')
          .set({ entryCount: sql`entry_count + 1` })
          .where('name', '=', 'Waitless')
          .execute(),
      )
      try {
        // A conflict check on the existing key would wait for the holder: the lock timeout makes
        // that wait an error instead of a hang.
        const rows = await db.transaction().execute(async (tx) => {
          await sql`set local lock_timeout = '1s'`.execute(tx)
          return tagService.ensure(tx, ['Waitless', 'Brand New Waitless'])
        })
        expect(rows.map((r) => r.name).sort()).toEqual(['Brand New Waitless', 'Waitless'])
      } finally {
        await holder.release()
      }
    },
  )

  it('keeps a profile’s tags in the order last saved, dropping the removed ones and counting each once', async () => {
    const u = await createUser(t)
    const save = async (tags: string[]) => {
      const before = t.database.queryCount()
      const res = await t.req({
        method: 'PATCH',
        url: '/v1/account/update',
        token: u.token,
        payload: { profile: { talent: { tags } } },
      })
      expect(res.statusCode, res.body).toBe(200)
      return {
        keys: res.json().data.profile.talent.tagsIds.map((x: { key: string }) => x.key),
        n: t.database.queryCount() - before,
      }
    }
    expect((await save(['Order A', 'Order B', 'Order C'])).keys).toEqual(['order-a', 'order-b', 'order-c'])
    const second = await save(['Order C', 'Order A'])
    expect(second.keys).toEqual(['order-c', 'order-a'])
    const again = await t.req({ method: 'GET', url: '/v1/account', token: u.token })
    expect(again.json().data.profile.talent.tagsIds.map((x: { key: string }) => x.key)).toEqual([
      'order-c',
      'order-a',
    ])
    const counts = await t.database.db
      .selectFrom('tags')
      .select(['key', 'entryCount'])
      .where('key', 'in', ['order-a', 'order-b', 'order-c'])
      .orderBy('key')
      .execute()
    expect(counts).toEqual([
      { key: 'order-a', entryCount: 1 },
      { key: 'order-b', entryCount: 0 },
      { key: 'order-c', entryCount: 1 },
    ])
    // The account row locked, its tags read, the tags found, their counts moved, its tags set, the
    // row updated and read back.
    expect(second.n).toBe(7)
  })

  it('answers every label asked for when keeping the ones it read pushes out others', async () => {
    const rows = await tagService.ensure(t.database.db, ['Bound One', 'Bound Two', 'Bound Three'])
    const kept = new TagLabels(2)
    kept.remember([rows[0]!])
    const before = t.database.queryCount()
    const answered = await kept.of(
      t.database.db,
      rows.map((r) => r.id),
    )
    expect(t.database.queryCount() - before).toBe(1)
    expect(answered.map((l) => l.name)).toEqual(['Bound One', 'Bound Two', 'Bound Three'])
    expect(kept.size).toBe(2)
    // Kept ones answer without a read; a label kept again does not push another out.
    kept.remember([rows[2]!])
    expect(kept.size).toBe(2)
    const again = t.database.queryCount()
    expect((await kept.of(t.database.db, [rows[2]!.id])).map((l) => l.key)).toEqual(['bound-three'])
    expect(t.database.queryCount() - again).toBe(0)
  })
})
