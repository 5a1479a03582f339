// A new, empty database of the driver under test (no migration applied): PGlite in a directory of
// its own (unpacked from the machine's cluster template, as the service's embedded database is), or
// with TEST_DB=postgres a new PostgreSQL database, dropped by `close`.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { inject } from 'vitest'
import { type Database, openPGlite, openPostgres } from '../../src/db/index.ts'
import { scratchPostgres } from '../helpers/postgres.ts'

export interface EmptyDatabase {
  /** another handle on the same database (its own pool on PostgreSQL; the same one on PGlite) */
  second(): Database
  database: Database
  close(): Promise<void>
}

export async function emptyDatabase(): Promise<EmptyDatabase> {
  if (inject('testDb') === 'postgres') {
    const scratch = await scratchPostgres('wp_db')
    const opened = [openPostgres(scratch.url, 4)]
    return {
      database: opened[0]!,
      second: () => {
        const another = openPostgres(scratch.url, 4)
        opened.push(another)
        return another
      },
      async close() {
        for (const d of opened) await d.close()
        await scratch.drop()
      },
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'wp-db-'))
  const database = await openPGlite({ dataDir: join(dir, 'pg') })
  return {
    database,
    second: () => database,
    async close() {
      await database.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const MIGRATIONS = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url))

/**
 * A folder of the product's migrations before `name` (each file re-exports the product's), for
 * `migrateToLatest(db, { folder })`: a database as it was before that migration, to test what the
 * migration does to rows already there.
 */
export function migrationsBefore(name: string): URL {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'))
  for (const file of readdirSync(MIGRATIONS).filter((f) => f < name))
    writeFileSync(join(dir, file), `export * from '${pathToFileURL(join(MIGRATIONS, file)).href}'\n`)
  return pathToFileURL(`${dir}/`)
}

/** Three rows of columns of every kind: NULLs, a duplicate name, names pg and JavaScript treat apart. */
export const WIDE = `select 1::int8 as id_count, 'a''b'::text as first_name, null::text as last_name,
  '2026-01-02T03:04:05Z'::timestamptz as created_at, array['x', 'y,z']::text[] as tag_ids,
  '{"nested_key": {"deep_key": 1}}'::jsonb as meta_data, 12.50::numeric as payment_fee,
  true as is_private, 2 as id_count, 3 as "?column?", 4 as "1", 5 as "Mixed Case", 6 as already_camelCase
  from generate_series(1, 3) i`
