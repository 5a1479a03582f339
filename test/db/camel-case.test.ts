// Names in camel case in the code and snake case in the database (src/db/camel-case.ts), as
// Kysely's CamelCasePlugin maps them: the SQL compiled for queries of every kind is the plugin's,
// and a result's rows are renamed as the plugin renames them (keys in the same order, nested
// keys kept), on both drivers.
import {
  CamelCasePlugin,
  type Dialect,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  sql,
  type UnknownRow,
} from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CamelCase, snakeCaseIdentifiers } from '../../src/db/camel-case.ts'
import { type EmptyDatabase, emptyDatabase, WIDE } from './support.ts'

const result = (rows: UnknownRow[]): QueryResult<UnknownRow> => ({ rows })
const camel = new CamelCasePlugin({ maintainNestedObjectKeys: true })
const shaped = new CamelCase()
const transform = (plugin: CamelCasePlugin, r: QueryResult<UnknownRow>) =>
  plugin.transformResult({ result: r, queryId: { queryId: 'q' } })

describe('camel-case renaming by shape', () => {
  it('answers what CamelCasePlugin answers, keys in the same order', async () => {
    const rows = [
      { user_id: 'u1', tag_ids: ['a'], meta: { inner_key: 1 }, created_at: new Date(0), x_1: null },
      { user_id: 'u2', tag_ids: [], meta: null, created_at: new Date(1), x_1: 2 },
    ]
    const mine = await transform(shaped, result(rows))
    const theirs = await transform(camel, result(rows))
    expect(mine.rows).toEqual(theirs.rows)
    expect(mine.rows.map((r) => Object.keys(r))).toEqual(theirs.rows.map((r) => Object.keys(r)))
    expect(mine.rows[0]).toEqual({
      userId: 'u1',
      tagIds: ['a'],
      meta: { inner_key: 1 },
      createdAt: new Date(0),
      x1: null,
    })
  })

  it('keeps the last of two columns that rename alike, at the first one’s place', async () => {
    const rows = [{ user_id: 1, other: 2, userId: 3 }]
    const mine = await transform(shaped, result(rows))
    expect(mine.rows).toEqual((await transform(camel, result(rows))).rows)
    expect(Object.keys(mine.rows[0]!)).toEqual(['userId', 'other'])
    expect(mine.rows[0]!.userId).toBe(3)
  })

  it('builds a `__proto__` column the original way, and passes results without rows through', async () => {
    const rows = [JSON.parse('{"__proto__": {"a_b": 1}, "c_d": 2}') as UnknownRow]
    const mine = await transform(shaped, result(rows))
    expect(mine.rows).toEqual((await transform(camel, result(rows))).rows)
    expect(Object.getPrototypeOf(mine.rows[0])).toBe(Object.prototype)
    const empty = result([])
    expect((await transform(shaped, empty)).rows).toEqual([])
    const update = { rows: undefined as never, numAffectedRows: 2n }
    expect(await transform(shaped, update)).toBe(update)
  })
})

describe('through the database', () => {
  let d: EmptyDatabase
  beforeAll(async () => {
    d = await emptyDatabase()
  })
  afterAll(() => d?.close())

  it('renames each row of a query, nested keys kept', async () => {
    const { rows } = await sql<UnknownRow>`${sql.raw(WIDE)}`.execute(d.database.db)
    expect(rows).toHaveLength(3)
    expect(Object.keys(rows[0]!)).toEqual([
      '1',
      'idCount',
      'firstName',
      'lastName',
      'createdAt',
      'tagIds',
      'metaData',
      'paymentFee',
      'isPrivate',
      '?column?',
      'Mixed Case',
      'alreadyCamelcase',
    ])
    expect(rows[0]).toMatchObject({
      idCount: 2,
      firstName: "a'b",
      lastName: null,
      createdAt: new Date('2026-01-02T03:04:05Z'),
      tagIds: ['x', 'y,z'],
      metaData: { nested_key: { deep_key: 1 } },
      paymentFee: '12.50',
      isPrivate: true,
    })
  })
})

describe('the SQL compiled', () => {
  const dummy: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  }
  const plugin = new Kysely<any>({
    dialect: dummy,
    plugins: [new CamelCasePlugin({ maintainNestedObjectKeys: true })],
  })
  const ours = new CamelCase()
  const compiled = new Kysely<any>({ dialect: snakeCaseIdentifiers(dummy, ours), plugins: [ours] })

  it('is the plugin’s, for queries of every kind', () => {
    const queries = (db: Kysely<any>) => [
      db
        .selectFrom('userProfiles as up')
        .innerJoin('userAccounts as ua', 'ua.accountId', 'up.userId')
        .leftJoin(
          (eb) =>
            eb
              .selectFrom('tagEntries')
              .select(['tagId', (e) => e.fn.countAll().as('entryCount')])
              .groupBy('tagId')
              .as('te'),
          (join) => join.onRef('te.tagId', '=', 'up.mainTagId'),
        )
        .select(['up.firstName', 'ua.createdAt as openedAt', sql.ref('up.lastName').as('familyName')])
        .select((eb) => [
          eb
            .selectFrom('bookmarks as b')
            .select('b.id')
            .whereRef('b.userId', '=', 'up.userId')
            .limit(1)
            .as('bookmarkId'),
          sql<string>`coalesce(${sql.ref('up.displayName')}, ${'x'})`.as('shownName'),
          eb.fn.coalesce('up.isPrivate', sql.lit(false)).as('isPrivate'),
        ])
        .where('up.createdAt', '>', new Date(0))
        .where((eb) => eb.or([eb('ua.isDeleted', '=', false), eb('up.tagKeys', '@>', sql`array['a']`)]))
        .orderBy('up.createdAt', 'desc')
        .limit(10)
        .offset(5),
      db
        .with('recentRows', (q) =>
          q.selectFrom('ledgerEntries').select(['accountId', 'amountUnits']).where('coinRef', '=', 'usdc'),
        )
        .selectFrom('recentRows')
        .select(['accountId'])
        .select((eb) => eb.fn.sum('amountUnits').as('totalUnits'))
        .groupBy('accountId')
        .having((eb) => eb.fn.sum('amountUnits'), '>', 0),
      db
        .insertInto('outgoingNonces')
        .values({ chainId: 1, fromAddress: '0xab', nextNonce: 3 })
        .onConflict((oc) =>
          oc
            .columns(['chainId', 'fromAddress'])
            .doUpdateSet((eb) => ({ nextNonce: eb.ref('excluded.nextNonce') })),
        )
        .returning(['nextNonce', 'updatedAt']),
      db
        .updateTable('collections as c')
        .set({ escrowPaid: true, updatedAt: sql`now()` })
        .from('escrowDeals as e')
        .whereRef('e.collectionId', '=', 'c.id')
        .where('c.isDeleted', '=', false)
        .returningAll('c'),
      db.deleteFrom('sessionTokens').where('expiresAt', '<', new Date(0)).returning('sessionId'),
      db.schema
        .createTable('someTable')
        .addColumn('rowId', 'text', (c) => c.primaryKey())
        .addColumn('createdAt', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addUniqueConstraint('someTable_rowId_key', ['rowId', 'createdAt']),
      db.schema.createIndex('someTableCreatedAt').on('someTable').columns(['createdAt', 'rowId']),
      sql`select ${sql.ref('userAccounts.accountId')}, ${sql.table('userAccounts')}.${sql.id('isDeleted')} from ${sql.table('userAccounts')}`,
    ]
    const theirs = queries(plugin)
    const mine = queries(compiled)
    for (let i = 0; i < theirs.length; i++) {
      const a = theirs[i]!.compile(plugin)
      const b = mine[i]!.compile(compiled)
      expect(b.sql, `query ${i}`).toBe(a.sql)
      expect(b.parameters, `query ${i}`).toEqual(a.parameters)
      expect(b.sql, `query ${i}`).not.toMatch(/[a-z][A-Z]/)
    }
  })
})
