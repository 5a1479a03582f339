// Forward-only migrations, applied in name order at start-up (and by `npm run migrate`).
import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely'
import * as m0001 from './migrations/0001-foundation.ts'

const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
}

class StaticProvider implements MigrationProvider {
  async getMigrations() {
    return migrations
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new StaticProvider() })
  const { error, results } = await migrator.migrateToLatest()
  if (error) throw error
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
