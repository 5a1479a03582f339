// Statements sent ahead (src/db/ahead.ts) on a real PostgreSQL pool connection: inside a
// transaction they wait for its next statement or its COMMIT and travel with it (round trips
// counted as the server's ReadyForQuery answers), run in order before it, fail the transaction when
// they fail, vanish with a rollback, and run at once outside a transaction. A NOTIFY sent ahead
// reaches a listener at the commit only.
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AHEAD, notifyAtCommit, sendAhead } from '../../src/db/ahead.ts'
import { countingPool, type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'

describe.runIf(process.env.TEST_DB === 'postgres')('statements sent ahead', () => {
  let scratch: ScratchPostgres
  let pool: pg.Pool
  let db: Kysely<any>
  let listener: pg.Client
  const heard: string[] = []
  let counts: { roundTrips: number }

  beforeAll(async () => {
    scratch = await scratchPostgres('wp_ahead')
    ;({ pool, counts } = countingPool(scratch.url))
    db = new Kysely({ dialect: new PostgresDialect({ pool }) })
    await sql`create table a (id int primary key, v text not null, at timestamptz, n int)`.execute(db)
    listener = new pg.Client({ connectionString: scratch.url })
    await listener.connect()
    listener.on('notification', (m) => heard.push(m.payload ?? ''))
    await listener.query('listen ahead_test')
  })
  afterAll(async () => {
    await listener?.end()
    await db?.destroy()
    await scratch?.drop()
  })

  const counted = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const before = counts.roundTrips
    const out = await fn()
    return [out, counts.roundTrips - before]
  }
  const ids = async () =>
    (await sql<{ id: number }>`select id from a order by id`.execute(db)).rows.map((r) => r.id)
  /** Every notification committed before this call has reached the listener. */
  const heardSoFar = async () => {
    await listener.query('select 1')
    return [...heard]
  }
  const insert = (ex: Kysely<any>, id: number, v = `v${id}`) =>
    sendAhead(ex, ex.insertInto('a').values({ id, v }).returning(['id', 'v']))
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'done',
      (err) => (err as { code?: string }).code ?? String(err),
    )

  it('go out with the COMMIT: a transaction of writes sent ahead takes one round trip', async () => {
    const [, trips] = await counted(() =>
      db.transaction().execute(async (tx) => {
        await insert(tx, 1)
        await insert(tx, 2)
        await notifyAtCommit(tx, 'ahead_test', 'one and two')
      }),
    )
    expect(trips).toBe(1)
    expect(await ids()).toEqual([1, 2])
    expect(await heardSoFar()).toEqual(['one and two'])
  })

  it('run before the next statement, which sees them and keeps its own answer', async () => {
    const [seen, trips] = await counted(() =>
      db.transaction().execute(async (tx) => {
        await insert(tx, 3)
        const read = await tx.selectFrom('a').select(['id', 'v']).where('id', '>=', 2).orderBy('id').execute()
        await insert(tx, 4)
        return read
      }),
    )
    // BEGIN, the insert and the read; then the second insert with the COMMIT.
    expect(trips).toBe(2)
    expect(seen).toEqual([
      { id: 2, v: 'v2' },
      { id: 3, v: 'v3' },
    ])
    expect(await ids()).toEqual([1, 2, 3, 4])
  })

  it('bind their values as any statement does (dates, nulls, numbers)', async () => {
    const at = new Date('2026-05-04T03:02:01.234Z')
    await db.transaction().execute(async (tx) => {
      await sendAhead(tx, tx.insertInto('a').values({ id: 5, v: 'dated', at, n: null }))
      await sendAhead(tx, tx.updateTable('a').set({ n: 7 }).where('id', '=', 4))
    })
    const rows = await db
      .selectFrom('a')
      .select(['id', 'at', 'n'])
      .where('id', 'in', [4, 5])
      .orderBy('id')
      .execute()
    expect(rows).toEqual([
      { id: 4, at: null, n: 7 },
      { id: 5, at, n: null },
    ])
  })

  it('fail the next statement with their own error, and the transaction rolls back whole', async () => {
    const failed = await code(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('a').values({ id: 10, v: 'kept until the failure' }).execute()
        await insert(tx, 1) // taken: fails when the next statement goes out
        await notifyAtCommit(tx, 'ahead_test', 'never')
        await tx.selectFrom('a').select('id').execute()
      }),
    )
    expect(failed).toBe('23505')
    expect(await ids()).toEqual([1, 2, 3, 4, 5])
    expect(await heardSoFar()).toEqual(['one and two'])
  })

  it('fail the COMMIT they travel with, leaving nothing written and the connection usable', async () => {
    const failed = await code(
      db.transaction().execute(async (tx) => {
        await insert(tx, 11)
        await insert(tx, 2) // taken
        await notifyAtCommit(tx, 'ahead_test', 'never either')
      }),
    )
    expect(failed).toBe('23505')
    expect(await ids()).toEqual([1, 2, 3, 4, 5])
    await db.transaction().execute((tx) => insert(tx, 12))
    expect(await ids()).toEqual([1, 2, 3, 4, 5, 12])
    expect(await heardSoFar()).toEqual(['one and two'])
  })

  it('vanish with a rollback, which costs no round trip when nothing else was sent', async () => {
    const [failed, trips] = await counted(() =>
      code(
        db.transaction().execute(async (tx) => {
          await insert(tx, 13)
          await notifyAtCommit(tx, 'ahead_test', 'rolled back')
          throw new Error('changed my mind')
        }),
      ),
    )
    expect(failed).toBe('Error: changed my mind')
    expect(trips).toBe(0)
    // After a statement that went out, the rollback is sent and drops what waited since.
    await code(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('a').values({ id: 14, v: 'sent' }).execute()
        await insert(tx, 15)
        throw new Error('changed my mind again')
      }),
    )
    expect(await ids()).toEqual([1, 2, 3, 4, 5, 12])
    expect(await heardSoFar()).toEqual(['one and two'])
  })

  it('run at once outside a transaction', async () => {
    const [, trips] = await counted(async () => {
      await insert(db, 20)
      await notifyAtCommit(db, 'ahead_test', 'at once')
    })
    expect(trips).toBe(2)
    expect(await ids()).toContain(20)
    expect(await heardSoFar()).toEqual(['one and two', 'at once'])
  })

  it('go out first, one by one, before a call made another way', async () => {
    const client = await pool.connect()
    try {
      await client.query('begin', [])
      await client.query(`${AHEAD}insert into a (id, v) values ($1, $2)`, [21, 'ahead'])
      const read = await client.query({
        text: 'select count(*)::int as n from a where id = $1',
        values: [21],
      })
      expect(read.rows).toEqual([{ n: 1 }])
      await client.query('commit', [])
    } finally {
      client.release()
    }
    expect(await ids()).toContain(21)
  })

  it('fail a call made another way with their own error, and every statement after it', async () => {
    const before = await ids()
    const client = await pool.connect()
    try {
      await client.query('begin', [])
      await client.query(`${AHEAD}insert into a (id, v) values ($1, $2)`, [22, 'kept until the failure'])
      await client.query(`${AHEAD}insert into a (id, v) values ($1, $2)`, [1, 'taken'])
      const read = client.query({ text: 'select count(*)::int as n from a', values: [] })
      expect(await code(read)).toBe('23505')
      // A caller that goes on anyway: the next statement and the COMMIT answer the same error.
      expect(await code(client.query('select 1', []))).toBe('23505')
      expect(await code(client.query('commit', []))).toBe('23505')
      // The connection is out of the transaction and usable.
      expect((await client.query('select 2 as n', [])).rows).toEqual([{ n: 2 }])
      await client.query('begin', [])
      await client.query(`${AHEAD}insert into a (id, v) values ($1, $2)`, [23, 'after'])
      expect(await code(client.query({ text: 'select 3', values: [] }))).toBe('done')
      await client.query('commit', [])
    } finally {
      client.release()
    }
    expect(await ids()).toEqual([...before, 23])
  })
})
