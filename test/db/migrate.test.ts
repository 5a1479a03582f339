// Migrations at start-up: a start with nothing pending costs one query and no migrator; pending
// migrations are applied in order; a history the folder and the database disagree on is refused as
// Kysely's migrator refuses it (never skipped); concurrent starters apply each migration once; and
// the product's own migrations come up on a new database and are skipped the second time.
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { type EmptyDatabase, emptyDatabase } from './support.ts'

const folder = (name: string) => new URL(`./migrations/${name}/`, import.meta.url)
const first = folder('first')
const second = folder('second')

let current: EmptyDatabase | undefined
afterEach(async () => {
  await current?.close()
  current = undefined
})
async function fresh() {
  current = await emptyDatabase()
  return current
}

async function tables(e: EmptyDatabase): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_name like 'fx\\_%' order by 1`.execute(e.database.db)
  return rows.map((r) => r.name)
}

async function recorded(e: EmptyDatabase): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
    e.database.db,
  )
  return rows.map((r) => r.name)
}

describe('migrateToLatest', () => {
  it('applies every migration of a new database in order, then skips the migrator with one query', async () => {
    const e = await fresh()
    expect(await migrateToLatest(e.database.db, { folder: first })).toEqual(['0001-alpha', '0002-beta'])
    expect(await tables(e)).toEqual(['fx_alpha', 'fx_beta'])

    const before = e.database.queryCount()
    expect(await migrateToLatest(e.database.db, { folder: first })).toEqual([])
    expect(e.database.queryCount() - before).toBe(1)
    expect(await recorded(e)).toEqual(['0001-alpha', '0002-beta'])
  })

  it('applies only what is pending when a migration is added', async () => {
    const e = await fresh()
    await migrateToLatest(e.database.db, { folder: first })
    expect(await migrateToLatest(e.database.db, { folder: second })).toEqual(['0003-gamma'])
    expect(await tables(e)).toEqual(['fx_alpha', 'fx_beta', 'fx_gamma'])
    expect(await recorded(e)).toEqual(['0001-alpha', '0002-beta', '0003-gamma'])
    expect(await migrateToLatest(e.database.db, { folder: second })).toEqual([])
  })

  it('refuses a migration named before one already applied instead of skipping it', async () => {
    const e = await fresh()
    await migrateToLatest(e.database.db, { folder: first })
    await expect(migrateToLatest(e.database.db, { folder: folder('inserted') })).rejects.toThrow(
      /corrupted migrations/,
    )
    expect(await tables(e)).toEqual(['fx_alpha', 'fx_beta'])
  })

  it('refuses a database that recorded a migration the folder no longer has', async () => {
    const e = await fresh()
    await migrateToLatest(e.database.db, { folder: second })
    await expect(migrateToLatest(e.database.db, { folder: first })).rejects.toThrow(/corrupted migrations/)
  })

  it('applies each migration once when two starters run at the same time', async () => {
    const e = await fresh()
    const results = await Promise.all([
      migrateToLatest(e.database.db, { folder: second }),
      migrateToLatest(e.second().db, { folder: second }),
    ])
    expect(results.flat().sort()).toEqual(['0001-alpha', '0002-beta', '0003-gamma'])
    expect(await recorded(e)).toEqual(['0001-alpha', '0002-beta', '0003-gamma'])
  })

  it("brings a new database to the product's schema, and finds nothing to do the second time", async () => {
    const e = await fresh()
    const applied = await migrateToLatest(e.database.db)
    expect(applied.length).toBeGreaterThan(20)
    expect(applied).toEqual([...applied].sort())
    expect(await recorded(e)).toEqual(applied)
    const before = e.database.queryCount()
    expect(await migrateToLatest(e.database.db)).toEqual([])
    expect(e.database.queryCount() - before).toBe(1)
  })
})
