// The read caches (profiles, wallet balances): a cached read costs no query, and nothing stale is
// ever served: not after a write through the service, nor one made by any other code or raw SQL,
// nor in another API process once the commit's notification reaches it.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { ReadCache, ReadCaches, registerWritingFunction, writtenTables } from '../../src/db/read-cache.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC, walletAddress } from '../helpers/money.ts'

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

describe('profile and wallet caches in the service', () => {
  let t: TestApp
  let user: TestUser

  beforeAll(async () => {
    t = await createTestApp()
    user = await createUser(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const account = async () => {
    const res = await t.req({ method: 'GET', url: '/v1/account', token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }

  it('a repeated profile read sends no query', async () => {
    await account()
    const before = t.database.queryCount()
    await account()
    expect(t.database.queryCount() - before).toBe(0)
  })

  it('a write by any code, builder or raw SQL, is seen on the next read', async () => {
    await account()
    await t.database.db.updateTable('users').set({ firstName: 'Builder' }).where('id', '=', user.id).execute()
    expect((await account()).firstName).toBe('Builder')
    await sql`update users set last_name = 'Raw' where id = ${user.id}`.execute(t.database.db)
    expect((await account()).lastName).toBe('Raw')
    await t.database.db.transaction().execute(async (tx) => {
      await tx.updateTable('users').set({ firstName: 'InTx' }).where('id', '=', user.id).execute()
    })
    expect((await account()).firstName).toBe('InTx')
  })

  // Two connections at once: PostgreSQL (the embedded database serves one at a time).
  it.runIf(process.env.TEST_DB === 'postgres')(
    'a read during an uncommitted change is not kept past its commit',
    async () => {
      await account()
      await t.database.db.transaction().execute(async (tx) => {
        await tx.updateTable('users').set({ firstName: 'Pending' }).where('id', '=', user.id).execute()
        // Another request reads while the change is not yet committed: it sees the old name.
        expect((await account()).firstName).not.toBe('Pending')
      })
      expect((await account()).firstName).toBe('Pending')
    },
  )

  it('a profile update through the API is seen on the next read, and a rolled-back one changes nothing', async () => {
    await account()
    const res = await t.req({
      method: 'PATCH',
      url: '/v1/account/update',
      token: user.token,
      payload: { firstName: 'Patched' },
    })
    expect(res.statusCode, res.body).toBe(200)
    expect((await account()).firstName).toBe('Patched')
    await t.database.db
      .transaction()
      .execute(async (tx) => {
        await tx.updateTable('users').set({ firstName: 'Never' }).where('id', '=', user.id).execute()
        throw new Error('rolled back')
      })
      .catch(() => {})
    expect((await account()).firstName).toBe('Patched')
  })

  it('a wallet balance after a deposit is seen on the next read', async () => {
    const wallet = async () => {
      const res = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().data.wallets.find((w: { id: string }) => w.id === 'usdc').amount
    }
    const before = Number(await wallet())
    const q = t.database.queryCount()
    await wallet()
    expect(t.database.queryCount() - q).toBe(0)
    const devnet = t.app.services.chain.devnet!
    const outsider = devnet.accounts[1]!
    await devnet.fund(outsider.address, 'usdc', 3n * USDC)
    await sendFrom(t, outsider, await walletAddress(t, user), 'usdc', 3n * USDC)
    await t.app.services.wallets.scanNow()
    expect(Number(await wallet())).toBe(before + 3)
  })
})

describe('one-collection cache', () => {
  let t: TestApp
  let owner: TestUser
  let other: TestUser

  beforeAll(async () => {
    t = await createTestApp()
    owner = await createUser(t)
    other = await createUser(t)
  })
  afterAll(async () => {
    await t?.close()
  })

  const create = async (body: Record<string, unknown>) => {
    const res = await t.req({ method: 'POST', url: '/v1/collection', token: owner.token, payload: body })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data._id as string
  }
  const read = (id: string, user: TestUser) =>
    t.req({ method: 'GET', url: `/v1/collection/${id}`, token: user.token })

  it('a repeated read sends no query; a child, a rename of the creator and an edit are seen at once', async () => {
    const id = await create({ name: 'Parent job', description: 'Cached parent', type: 'job', paymentFee: 10 })
    expect((await read(id, owner)).json().data.collections).toEqual([])
    const q = t.database.queryCount()
    expect((await read(id, owner)).statusCode).toBe(200)
    expect(t.database.queryCount() - q).toBe(0)
    const child = await create({
      name: 'Child',
      description: 'A part',
      type: 'job',
      paymentFee: 5,
      parent: id,
    })
    const children = (await read(id, owner)).json().data.collections as { _id: string }[]
    expect(children.map((c) => c._id)).toEqual([child])
    await t.database.db
      .updateTable('users')
      .set({ firstName: 'Renamed' })
      .where('id', '=', owner.id)
      .execute()
    expect((await read(id, owner)).json().data.creator.firstName).toBe('Renamed')
    const edit = await t.req({
      method: 'PATCH',
      url: `/v1/collection/${id}`,
      token: owner.token,
      payload: { name: 'Parent job, edited' },
    })
    expect(edit.statusCode, edit.body).toBe(200)
    expect((await read(id, owner)).json().data.name).toBe('Parent job, edited')
  })

  it('what one viewer may see is never served to another', async () => {
    const id = await create({
      name: 'Private job',
      description: 'Only mine',
      type: 'job',
      paymentFee: 10,
      isPrivate: true,
    })
    expect((await read(id, owner)).statusCode).toBe(200)
    expect((await read(id, other)).statusCode).toBe(404)
    await t.database.db.updateTable('collections').set({ isPrivate: false }).where('id', '=', id).execute()
    expect((await read(id, other)).statusCode).toBe(200)
  })
})

// A second API process has its own connections and caches: it hears of writes only through the
// notifications the writer sends after its commit (PostgreSQL; the embedded database is one
// process's alone).
describe.runIf(process.env.TEST_DB === 'postgres')('caches in a second API process', () => {
  let a: TestApp
  let second: Database
  let b: Awaited<ReturnType<typeof buildApp>>
  let user: TestUser

  beforeAll(async () => {
    a = await createTestApp()
    const url = (a.database as Database & { url?: string }).url!
    second = openPostgres(url, 5)
    b = await buildApp({ config: a.config, database: second, clock: a.clock, logger: false })
    await b.ready()
    user = await createUser(a)
  })
  afterAll(async () => {
    await b?.close()
    await second?.close()
    await a?.close()
  })

  const onB = async (url: string) => {
    const res = await b.inject({ method: 'GET', url, headers: { authorization: `Bearer ${user.token}` } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }
  /** Resolves when B hears that another process wrote `table`. */
  const heardOnB = (table: string) =>
    new Promise<void>((resolve) => {
      const off = second.caches.onNotified((p) => {
        if (p.split(':')[1]!.split(',').includes(table)) {
          off()
          resolve()
        }
      })
    })

  it('a profile changed through one process is read fresh by the other once notified', async () => {
    await onB('/v1/account')
    const q = second.queryCount()
    await onB('/v1/account')
    expect(second.queryCount() - q).toBe(0)
    const heard = heardOnB('users')
    const res = await a.req({
      method: 'PATCH',
      url: '/v1/account/update',
      token: user.token,
      payload: { firstName: 'Elsewhere' },
    })
    expect(res.statusCode, res.body).toBe(200)
    await heard
    expect((await onB('/v1/account')).firstName).toBe('Elsewhere')
  })

  it('a deposit credited by one process is in the other’s next wallet read once notified', async () => {
    const usdc = async () =>
      Number((await onB('/v1/wallet')).wallets.find((w: { id: string }) => w.id === 'usdc').amount)
    const before = await usdc()
    const heard = heardOnB('ledger_accounts')
    const devnet = a.app.services.chain.devnet!
    const outsider = devnet.accounts[1]!
    await devnet.fund(outsider.address, 'usdc', 2n * USDC)
    await sendFrom(a, outsider, await walletAddress(a, user), 'usdc', 2n * USDC)
    await a.app.services.wallets.scanNow()
    await heard
    expect(await usdc()).toBe(before + 2)
  })
})
