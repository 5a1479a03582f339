// Tag entry counts under concurrent saves: overlapping tag sets saved at once, in every order, by
// profiles and collections, answer no 5xx and leave each count exact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { api, word } from './helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

/** `n` tag names out of `pool`, starting at `from` and going around, reversed every other time. */
function pick(pool: string[], from: number, n: number): string[] {
  const names = Array.from({ length: n }, (_, i) => pool[(from + i) % pool.length]!)
  return from % 2 ? names.reverse() : names
}

async function counts(keys: string[]): Promise<Map<string, number>> {
  const rows = await t.database.db
    .selectFrom('tags')
    .select(['key', 'entryCount'])
    .where('key', 'in', keys)
    .execute()
  return new Map(rows.map((r) => [r.key, r.entryCount]))
}

describe('tag entry counts saved concurrently', () => {
  it('20 concurrent profile saves and collection writes over overlapping tags: no 5xx, exact counts', async () => {
    const a = api(t)
    const deadlocksBefore = t.database.retryStats.retried.deadlock
    const prefix = word('tc')
    const pool = Array.from({ length: 6 }, (_, i) => `${prefix}${i}`)
    const users: TestUser[] = []
    for (let i = 0; i < 20; i++) users.push(await createUser(t))
    const finalSets = new Map<number, string[]>()

    // Round one: every user sets four tags of the pool (new tags are created by the first save).
    const first = await Promise.all(
      users.map((u, i) => {
        finalSets.set(i, pick(pool, i, 4))
        return a.patch('/v1/account/update', { profile: { talent: { tags: finalSets.get(i) } } }, u.token)
      }),
    )
    // More rounds of moves between overlapping sets, each user's in another order: the rows are
    // contended by every save of a round.
    for (let round = 1; round <= 3; round++) {
      const moved = await Promise.all(
        users.map((u, i) => {
          finalSets.set(i, pick(pool, i + round, 3 + (round % 2)))
          return a.patch('/v1/account/update', { profile: { talent: { tags: finalSets.get(i) } } }, u.token)
        }),
      )
      first.push(...moved)
    }
    // Round two, while collections are created and retagged: each user moves to another set, so
    // one save adds some tags and removes others.
    const collections = users.slice(0, 5)
    const created = await Promise.all([
      ...users.map((u, i) => {
        finalSets.set(i, pick(pool, i + 3, 3))
        return a.patch('/v1/account/update', { profile: { talent: { tags: finalSets.get(i) } } }, u.token)
      }),
      ...collections.map((u, i) =>
        a.post(
          '/v1/collection',
          { name: `Job ${prefix} ${i}`, description: 'A job', type: 'job', tags: pick(pool, i + 1, 3) },
          u.token,
        ),
      ),
    ])
    const responses = [...first, ...created]
    const failed = responses.filter((r) => r.statusCode >= 300)
    expect(
      failed.map((r) => `${r.statusCode} ${r.body}`),
      'every save answered',
    ).toEqual([])

    // Round three: the collections change their tags at once.
    const ids = created.slice(users.length).map((r) => r.json().data._id as string)
    const retagged = await Promise.all(
      ids.map((id, i) =>
        a.patch(`/v1/collection/${id}`, { tags: pick(pool, i + 4, 2) }, collections[i]!.token),
      ),
    )
    expect(retagged.map((r) => r.statusCode)).toEqual(ids.map(() => 200))

    const expected = new Map(pool.map((name) => [name, 0]))
    for (const set of finalSets.values()) for (const name of set) expected.set(name, expected.get(name)! + 1)
    for (let i = 0; i < ids.length; i++)
      for (const name of pick(pool, i + 4, 2)) expected.set(name, expected.get(name)! + 1)
    expect(await counts(pool)).toEqual(expected)
    // Rows are locked in one order, so no save needed the transaction retry to get through.
    expect(t.database.retryStats.retried.deadlock - deadlocksBefore).toBe(0)
  })
})
