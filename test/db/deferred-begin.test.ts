// A transaction's BEGIN sent with its first statement (src/db/deferred-begin.ts), on a real
// PostgreSQL: the round trips it saves (counted as the server's ReadyForQuery answers), and that
// the statements still run inside the transaction, roll back with it, fail as before, and leave
// the connection usable. Calls of registered functions go out as named statements, parsed once per
// connection (src/db/prepared.ts).
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deferBegin } from '../../src/db/deferred-begin.ts'
import { registerPreparedFunction } from '../../src/db/prepared.ts'
import { countingPool, type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'

describe.runIf(process.env.TEST_DB === 'postgres')('BEGIN sent with the first statement', () => {
  let scratch: ScratchPostgres
  let pool: pg.Pool
  let db: Kysely<any>
  let counts: { roundTrips: number; parses: number }

  beforeAll(async () => {
    scratch = await scratchPostgres('wp_begin')
    // One connection: every transaction below reuses the client the previous one left.
    ;({ pool, counts } = countingPool(scratch.url))
    db = new Kysely({ dialect: new PostgresDialect({ pool }) })
    await sql`create table t (id int primary key, v text not null)`.execute(db)
  })
  afterAll(async () => {
    await db.destroy()
    await scratch.drop()
  })

  const counted = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const before = counts.roundTrips
    const out = await fn()
    return [out, counts.roundTrips - before]
  }
  const rows = async () =>
    (await sql<{ id: number; v: string }>`select id, v from t order by id`.execute(db)).rows

  it('writes a one-statement transaction in two round trips, with the statement’s own result', async () => {
    const [inserted, trips] = await counted(() =>
      db.transaction().execute((tx) => tx.insertInto('t').values({ id: 1, v: 'one' }).executeTakeFirst()),
    )
    expect(trips).toBe(2)
    expect(inserted.numInsertedOrUpdatedRows).toBe(1n)
    const [read, readTrips] = await counted(() =>
      db.transaction().execute(async (tx) => {
        const first = await tx.selectFrom('t').select(['id', 'v']).execute()
        const second = await tx.updateTable('t').set({ v: 'uno' }).where('id', '=', 1).executeTakeFirst()
        return { first, updated: second.numUpdatedRows }
      }),
    )
    expect(readTrips).toBe(3)
    expect(read).toEqual({ first: [{ id: 1, v: 'one' }], updated: 1n })
    expect(await rows()).toEqual([{ id: 1, v: 'uno' }])
  })

  it('runs the first statement inside the transaction: it rolls back with it', async () => {
    await db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('t').values({ id: 2, v: 'two' }).execute()
        throw new Error('changed my mind')
      })
      .catch(() => undefined)
    expect(await rows()).toEqual([{ id: 1, v: 'uno' }])
    // One snapshot and one transaction time from the first statement on.
    const times = await db.transaction().execute(async (tx) => {
      const a = await sql<{
        t: string
        x: string
      }>`select now()::text as t, pg_current_xact_id()::text as x`.execute(tx)
      await sql`select pg_sleep(0.01)`.execute(tx)
      const b = await sql<{
        t: string
        x: string
      }>`select now()::text as t, pg_current_xact_id()::text as x`.execute(tx)
      return [a.rows[0], b.rows[0]]
    })
    expect(times[0]).toEqual(times[1])
  })

  it('fails a first statement as before, rolls back, and leaves the connection usable', async () => {
    const failed = await db
      .transaction()
      .execute((tx) => tx.insertInto('t').values({ id: 1, v: 'again' }).execute())
      .then(
        () => 'written',
        (err) => (err as { code?: string }).code,
      )
    expect(failed).toBe('23505')
    await db.transaction().execute((tx) => tx.insertInto('t').values({ id: 3, v: 'three' }).execute())
    expect(await rows()).toEqual([
      { id: 1, v: 'uno' },
      { id: 3, v: 'three' },
    ])
    const status = await sql<{ s: string }>`select 'idle'::text as s`.execute(db)
    expect(status.rows).toEqual([{ s: 'idle' }])
  })

  it('commits or rolls back a transaction that sent nothing without a round trip', async () => {
    const [, committed] = await counted(() => db.transaction().execute(async () => 'nothing'))
    expect(committed).toBe(0)
    const [, rolledBack] = await counted(() =>
      db
        .transaction()
        .execute(async () => {
          throw new Error('before any statement')
        })
        .catch(() => undefined),
    )
    expect(rolledBack).toBe(0)
    // The next transaction opens as usual on the same connection.
    const [inserted, trips] = await counted(() =>
      db.transaction().execute((tx) => tx.insertInto('t').values({ id: 4, v: 'four' }).executeTakeFirst()),
    )
    expect(trips).toBe(2)
    expect(inserted.numInsertedOrUpdatedRows).toBe(1n)
  })

  it('queues BEGIN first for a statement given another way (a config object)', async () => {
    const client = await pool.connect()
    try {
      await client.query('begin', [])
      const inserted = await client.query({
        text: 'insert into t (id, v) values ($1, $2)',
        values: [5, 'five'],
      })
      expect(inserted.rowCount).toBe(1)
      const inside = await client.query('select now() = statement_timestamp() as fresh')
      // Inside a transaction begun before the insert: now() is the transaction's start, not this statement's.
      expect(inside.rows[0]).toMatchObject({ fresh: false })
      await client.query('rollback', [])
    } finally {
      client.release()
    }
    expect((await rows()).map((r) => r.id)).not.toContain(5)
  })

  it('sends a transaction with an isolation level as it is', async () => {
    const [level, trips] = await counted(() =>
      db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(
          async (tx) =>
            (
              await sql<{ level: string }>`select current_setting('transaction_isolation') as level`.execute(
                tx,
              )
            ).rows[0]?.level,
        ),
    )
    expect(level).toBe('repeatable read')
    expect(trips).toBe(3)
  })

  it('keeps concurrent transactions apart on a pool of several connections', async () => {
    const wide = new pg.Pool({ connectionString: scratch.url, max: 4 })
    wide.on('connect', deferBegin)
    const many = new Kysely<any>({ dialect: new PostgresDialect({ pool: wide }) })
    try {
      const ids = Array.from({ length: 40 }, (_, i) => 100 + i)
      const seen = await Promise.all(
        ids.map((id) =>
          many
            .transaction()
            .execute(async (tx) => {
              await tx
                .insertInto('t')
                .values({ id, v: `v${id}` })
                .execute()
              if (id % 5 === 0) throw new Error('rolled back on purpose')
              return (await tx.selectFrom('t').select('v').where('id', '=', id).executeTakeFirst())?.v
            })
            .catch(() => 'rolled back'),
        ),
      )
      expect(seen).toEqual(ids.map((id) => (id % 5 === 0 ? 'rolled back' : `v${id}`)))
      const kept = await sql<{ n: number }>`select count(*)::int as n from t where id >= 100`.execute(many)
      expect(kept.rows[0]?.n).toBe(32)
    } finally {
      await many.destroy()
    }
  })
  describe('calls of registered functions', () => {
    beforeAll(async () => {
      registerPreparedFunction('wp_test_half')
      registerPreparedFunction('wp_test_later')
      await sql`
        create function wp_test_half(x int, out half int, out seen int) language plpgsql as $$
        begin
          if x < 0 then
            raise exception 'negative: %', x using errcode = '22023';
          end if;
          half := x / 2;
          select count(*)::int into seen from t;
        end $$`.execute(db)
    })
    const half = (ex: Kysely<any>, x: number) =>
      sql<{ half: number; seen: number }>`select half, seen from wp_test_half(${x}::int)`.execute(ex)
    const named = async () =>
      (
        await sql<{ name: string; statement: string }>`
          select name, statement from pg_prepared_statements order by name`.execute(db)
      ).rows

    it('go out as one named statement, parsed once on the connection, in and out of transactions', async () => {
      const before = counts.parses
      expect((await half(db, 10)).rows).toEqual([{ half: 5, seen: expect.any(Number) }])
      const inTx = await db.transaction().execute(async (tx) => {
        const first = await half(tx, 8)
        await tx.insertInto('t').values({ id: 50, v: 'fifty' }).execute()
        const second = await half(tx, 6)
        return [first.rows[0], second.rows[0]]
      })
      // The insert is seen by the second call: both ran in the transaction.
      expect(inTx).toEqual([
        { half: 4, seen: inTx[0]!.seen },
        { half: 3, seen: inTx[0]!.seen + 1 },
      ])
      const [, trips] = await counted(() =>
        db.transaction().execute(async (tx) => expect((await half(tx, 4)).rows[0]?.half).toBe(2)),
      )
      expect(trips).toBe(2)
      // Parsed: the call once, the insert, and the two transactions' BEGINs.
      expect(counts.parses - before).toBe(1 + 1 + 2)
      const statements = await named()
      expect(statements).toHaveLength(1)
      expect(statements[0]?.name).toMatch(/^wp_wp_test_half_\d+$/)
      expect(statements[0]?.statement).toContain('from wp_test_half(')
      await db.deleteFrom('t').where('id', '=', 50).execute()
    })

    it('fail as before when the function raises, and the named statement stays usable', async () => {
      const failed = await db
        .transaction()
        .execute((tx) => half(tx, -2))
        .then(
          () => 'answered',
          (err) => (err as { code?: string }).code,
        )
      expect(failed).toBe('22023')
      expect(await half(db, -4).catch((err) => (err as { code?: string }).code)).toBe('22023')
      expect((await half(db, 2)).rows[0]?.half).toBe(1)
      expect(await named()).toHaveLength(1)
    })

    it('leave no name behind when the call does not parse, and parse once it can', async () => {
      const later = (ex: Kysely<any>) =>
        sql<{ v: number }>`select v from wp_test_later(${1}::int) as v`.execute(ex)
      const missing = await db
        .transaction()
        .execute((tx) => later(tx))
        .then(
          () => 'answered',
          (err) => (err as { code?: string }).code,
        )
      expect(missing).toBe('42883')
      expect((await named()).map((s) => s.statement)).not.toContainEqual(
        expect.stringContaining('wp_test_later'),
      )
      await sql`create function wp_test_later(x int) returns int language sql as 'select x + 1'`.execute(db)
      const inTx = await db.transaction().execute(async (tx) => (await later(tx)).rows[0]?.v)
      expect(inTx).toBe(2)
      expect((await later(db)).rows[0]?.v).toBe(2)
      expect((await named()).filter((s) => s.statement.includes('wp_test_later'))).toHaveLength(1)
    })
  })
})
