// Forward-only migrations, applied in name order at start-up (and by `npm run migrate`). Every
// file `src/db/migrations/NNNN-name.ts` exporting `up(db)` is one migration (`.js` once built into
// `dist/`; the name without its extension is what the database records).
//
// A start where every migration is already recorded (the usual one) costs one query: the recorded
// names are compared with the folder's and the migrator (its lock table, its lock, importing every
// migration file) is skipped. Anything else, pending migrations or names the folder and the database
// disagree on, goes through Kysely's migrator, which applies what is pending under its lock (so
// concurrent starters on PostgreSQL apply each migration once) and refuses a history it cannot
// follow.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'

const defaultFolder = new URL('./migrations/', import.meta.url)
const migrationFile = /^\d{4}-[\w-]+\.[jt]s$/
/** Kysely's default table of applied migrations */
const migrationTable = 'kysely_migration'

/** The migration files of a folder, in the order they apply. */
function migrationFiles(folder: URL): string[] {
  return readdirSync(folder)
    .filter((f) => migrationFile.test(f))
    .sort()
}

const nameOf = (file: string) => file.replace(/\.[jt]s$/, '')

/**
 * A digest of the migrations as they are (each file's name and contents, in order): a database
 * migrated by one set is kept under its digest (src/db/migrated-template.ts), and any change to a
 * migration, or a new one, gives another.
 */
export function migrationsDigest(folder: URL = defaultFolder): string {
  const digest = createHash('sha256')
  for (const file of migrationFiles(folder))
    digest
      .update(file)
      .update('\0')
      .update(readFileSync(new URL(file, folder)))
      .update('\0')
  return digest.digest('hex').slice(0, 16)
}

class FolderProvider implements MigrationProvider {
  constructor(private readonly folder: URL) {}
  async getMigrations() {
    const migrations: Record<string, Migration> = {}
    for (const file of migrationFiles(this.folder))
      migrations[nameOf(file)] = await import(new URL(file, this.folder).href)
    return migrations
  }
}

/** The names recorded as applied; none when the table does not exist yet (a new database). */
async function recordedNames(db: Kysely<any>): Promise<string[]> {
  try {
    const rows = await db.selectFrom(migrationTable).select('name').execute()
    return rows.map((r) => r.name as string)
  } catch (err) {
    // 42P01: undefined_table
    if ((err as { code?: string }).code === '42P01') return []
    throw err
  }
}

export interface MigrateOptions {
  /** the folder of migration files; default: this module's `migrations/` */
  folder?: URL
}

/** Applies the pending migrations; answers the names applied (none when all were applied before). */
export async function migrateToLatest(db: Kysely<any>, opts: MigrateOptions = {}): Promise<string[]> {
  const folder = opts.folder ?? defaultFolder
  const names = migrationFiles(folder).map(nameOf)
  const recorded = new Set(await recordedNames(db))
  if (recorded.size === names.length && names.every((n) => recorded.has(n))) return []
  const migrator = new Migrator({ db, provider: new FolderProvider(folder) })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
