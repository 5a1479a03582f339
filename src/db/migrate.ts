// Forward-only migrations, applied in name order at start-up (and by `npm run migrate`). Every
// file `src/db/migrations/NNNN-name.ts` exporting `up(db)` is one migration (`.js` once built into
// `dist/`; the name without its extension is what the database records).
import { readdirSync } from 'node:fs'
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'

const dir = new URL('./migrations/', import.meta.url)

class FolderProvider implements MigrationProvider {
  async getMigrations() {
    const migrations: Record<string, Migration> = {}
    const files = readdirSync(dir)
      .filter((f) => /^\d{4}-[\w-]+\.[jt]s$/.test(f))
      .sort()
    for (const file of files) migrations[file.replace(/\.[jt]s$/, '')] = await import(new URL(file, dir).href)
    return migrations
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new FolderProvider() })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
