// The read caches inside the service (profiles, wallet balances, one collection): a cached read
// costs no query, and nothing stale is ever served: not after a write through the service, nor one
// made by any other code or raw SQL, nor in another API process once the commit's notification
// reaches it. The caches' own rules are in read-cache.test.ts.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { type Database, openPostgres } from '../../src/db/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC, walletAddress } from '../helpers/money.ts'

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

  it('a tag’s entry count moved by its function alone is seen in the next profile read', async () => {
    const tag = `cachecount${user.id.slice(-6)}`
    const saved = await t.req({
      method: 'PATCH',
      url: '/v1/account/update',
      token: user.token,
      payload: { profile: { talent: { tags: [tag] } } },
    })
    expect(saved.statusCode, saved.body).toBe(200)
    const tagOf = async () => (await account()).profile.talent.tagsIds[0]
    const { _id: id, entryCount } = await tagOf()
    expect(entryCount).toBe(1)
    const before = t.database.queryCount()
    expect((await tagOf()).entryCount).toBe(1)
    expect(t.database.queryCount() - before).toBe(0)
    // The statement writes no row but the tag's, inside the function (migration 0062).
    await sql`select tags_add_entries(${[id]}::char(24)[], ${[1]}::int[], now())`.execute(t.database.db)
    expect((await tagOf()).entryCount).toBe(2)
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
    await t.app.services.settlement.watcher.scanNow()
    expect(Number(await wallet())).toBe(before + 3)

    // A hold placed and voided: both change the account's row in statements sent ahead
    // (src/db/ahead.ts), which the cache sees as writes like any other.
    const { ledger } = t.app.services
    const db = t.database.db
    const accountId = (await ledger.accountsOf(db, 'user', user.id)).usdc!.id
    const key = `cache-hold:${user.id}`
    const { id } = await db
      .transaction()
      .execute((tx) => ledger.hold(tx, { key, coin: 'usdc', account: accountId, amount: 2n * USDC }))
    expect(Number(await wallet())).toBe(before + 1)
    await db.transaction().execute((tx) => ledger.void(tx, { hold: id, key: `${key}:void` }))
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
    await a.app.services.settlement.watcher.scanNow()
    await heard
    expect(await usdc()).toBe(before + 2)
  })
})
