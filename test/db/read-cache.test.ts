// The read caches' own rules: which tables a statement writes, what a cache keeps and when it loads
// again, and how the registry tells the other processes. The caches inside the service are
// checked in read-cache-service.test.ts.
import { describe, expect, it } from 'vitest'
import { AHEAD } from '../../src/db/ahead.ts'
import { ReadCache, ReadCaches, registerWritingFunction, writtenTables } from '../../src/db/read-cache.ts'

describe('writtenTables', () => {
  it('names the tables a statement writes, builder and raw SQL alike, and none for a read', () => {
    expect(writtenTables('update "users" set "first_name" = $1 where "id" = $2')).toEqual(['users'])
    expect(writtenTables('insert into "user_tags" ("user_id") values ($1)')).toEqual(['user_tags'])
    expect(writtenTables('delete from achievements where owner = $1')).toEqual(['achievements'])
    expect(writtenTables('  UPDATE public.ledger_accounts SET balance = balance + 1')).toEqual([
      'ledger_accounts',
    ])
    expect(
      writtenTables('with moved as (update "ledger_accounts" set held = 0 returning id) select * from moved'),
    ).toEqual(['ledger_accounts'])
    // A statement sent ahead (src/db/ahead.ts) starts with its mark; any leading comment is skipped.
    expect(writtenTables(`${AHEAD}update "ledger_accounts" set "held" = held + $1`)).toEqual([
      'ledger_accounts',
    ])
    expect(writtenTables('/* a */ -- b\n /* c */ insert into events (id) values ($1)')).toEqual(['events'])
    expect(writtenTables(`${AHEAD}select pg_notify($1, $2)`)).toEqual([])
    expect(writtenTables('select * from users where id = $1 for update')).toEqual([])
    expect(writtenTables('select 1')).toEqual([])
  })

  it('counts a call of a registered database function as a write of its tables', () => {
    expect(writtenTables('select test_writer_fn($1, $2)')).toEqual([])
    registerWritingFunction('test_writer_fn', ['ledger_accounts', 'ledger_entries'])
    expect(writtenTables('select test_writer_fn($1, $2)')).toEqual(['ledger_accounts', 'ledger_entries'])
    expect(writtenTables('select * from "test_writer_fn"($1)')).toEqual(['ledger_accounts', 'ledger_entries'])
    expect(writtenTables('select test_writer_fnx($1)')).toEqual([])
  })

  it('answers the same for a text seen before, also past the bound on remembered texts', () => {
    const texts = Array.from({ length: 2_500 }, (_, i) =>
      i % 2 ? `update "users" set "score" = ${i} where "id" = $1` : `select ${i} from "users"`,
    )
    for (const round of [1, 2])
      for (const [i, text] of texts.entries())
        expect(writtenTables(text), `${text} (round ${round})`).toEqual(i % 2 ? ['users'] : [])
  })
})

describe('ReadCache', () => {
  it('serves a stored value, and loads again after a local write, a notification or its age', async () => {
    let now = 0
    const cache = new ReadCache<number>('t', { ttlMs: 1000, now: () => now })
    cache.setOn(true)
    let loads = 0
    const load = async () => ++loads
    expect(await cache.get('a', load)).toBe(1)
    expect(await cache.get('a', load)).toBe(1)
    cache.written()
    expect(await cache.get('a', load)).toBe(2)
    cache.changed('b')
    expect(await cache.get('a', load)).toBe(2)
    cache.changed('a')
    expect(await cache.get('a', load)).toBe(3)
    cache.changed('*')
    expect(await cache.get('a', load)).toBe(4)
    now += 1001
    expect(await cache.get('a', load)).toBe(5)
  })

  it('does not keep a load that raced with a change', async () => {
    const cache = new ReadCache<string>('t')
    cache.setOn(true)
    const raced = await cache.get('a', async () => {
      cache.changed('a')
      return 'old'
    })
    expect(raced).toBe('old')
    expect(await cache.get('a', async () => 'new')).toBe('new')
    const racedWrite = await cache.get('b', async () => {
      cache.written()
      return 'old'
    })
    expect(racedWrite).toBe('old')
    expect(await cache.get('b', async () => 'new')).toBe('new')
  })

  it('keeps nothing while off, and at most `max` entries', async () => {
    const cache = new ReadCache<string>('t', { max: 2 })
    expect(await cache.get('a', async () => '1')).toBe('1')
    expect(cache.size).toBe(0)
    cache.setOn(true)
    for (const k of ['a', 'b', 'c']) await cache.get(k, async () => k)
    expect(cache.size).toBe(2)
    expect(await cache.get('a', async () => 'again')).toBe('again')
  })

  it('the registry empties the caches that read a written table, and tells the other processes once', async () => {
    const caches = new ReadCaches()
    caches.setOn(true)
    const sent: string[] = []
    caches.setPublisher(async (p) => {
      sent.push(p)
    })
    const profiles = caches.create<string>('p', ['users', 'tags'])
    const wallets = caches.create<string>('w', ['ledger_accounts'])
    await profiles.get('u1', async () => 'p1')
    await wallets.get('u1', async () => 'w1')
    caches.written(['ledger_accounts'])
    caches.written(['ledger_accounts', 'not_cached'])
    expect(await profiles.get('u1', async () => 'p2')).toBe('p1')
    expect(await wallets.get('u1', async () => 'w2')).toBe('w2')
    await new Promise((r) => setImmediate(r))
    expect(sent).toEqual([`${caches.origin}:ledger_accounts`])
    // Another process wrote users: the profiles go, the wallets stay; its own echo changes nothing.
    caches.notified('other:users')
    expect(await profiles.get('u1', async () => 'p3')).toBe('p3')
    expect(await wallets.get('u1', async () => 'w3')).toBe('w2')
    caches.notified(`${caches.origin}:ledger_accounts`)
    caches.notified('nonsense')
    expect(await wallets.get('u1', async () => 'w4')).toBe('w2')
  })

  it('a notification that could not be sent goes with the next one', async () => {
    const caches = new ReadCaches()
    caches.setOn(true)
    caches.create<string>('p', ['users'])
    caches.create<string>('w', ['ledger_accounts'])
    let fail = true
    const sent: string[] = []
    caches.setPublisher(async (p) => {
      if (fail) throw new Error('down')
      sent.push(p)
    })
    caches.written(['users'])
    await new Promise((r) => setImmediate(r))
    fail = false
    caches.written(['ledger_accounts'])
    await new Promise((r) => setImmediate(r))
    expect(sent).toEqual([`${caches.origin}:users,ledger_accounts`])
  })

  it('tells the first write after a quiet spell at once, and a stream of writes once per interval', async () => {
    const caches = new ReadCaches({ publishIntervalMs: 200 })
    caches.setOn(true)
    caches.create<string>('p', ['users'])
    caches.create<string>('w', ['ledger_accounts'])
    caches.create<string>('c', ['collections'])
    const sent: [number, string][] = []
    const t0 = performance.now()
    caches.setPublisher(async (p) => {
      sent.push([performance.now() - t0, p])
    })
    caches.written(['users'])
    await new Promise((r) => setImmediate(r))
    expect(sent.map(([, p]) => p)).toEqual([`${caches.origin}:users`])
    // Written while the interval runs: held, then told together once it is over.
    caches.written(['ledger_accounts'])
    await new Promise((r) => setTimeout(r, 10))
    caches.written(['collections'])
    caches.written(['ledger_accounts'])
    await new Promise((r) => setImmediate(r))
    expect(sent).toHaveLength(1)
    await new Promise((r) => setTimeout(r, 250))
    expect(sent.map(([, p]) => p)).toEqual([
      `${caches.origin}:users`,
      `${caches.origin}:ledger_accounts,collections`,
    ])
    expect(sent[1]![0] - sent[0]![0]).toBeGreaterThanOrEqual(199)
    // Quiet for longer than the interval: the next write is told at once again.
    await new Promise((r) => setTimeout(r, 250))
    caches.written(['users'])
    await new Promise((r) => setImmediate(r))
    expect(sent).toHaveLength(3)
  })

  it('keeps one value per viewer of a key, and a change to the key drops them all', async () => {
    const cache = new ReadCache<string>('t')
    cache.setOn(true)
    expect(await cache.get('c1', async () => 'for alice', 'alice')).toBe('for alice')
    expect(await cache.get('c1', async () => 'for bob', 'bob')).toBe('for bob')
    expect(await cache.get('c1', async () => 'again', 'alice')).toBe('for alice')
    cache.changed('c1')
    expect(await cache.get('c1', async () => 'new for bob', 'bob')).toBe('new for bob')
  })
})
