// What the command-line entry points (main.ts, keys.ts, restore.ts) share: the service's own
// configuration, read once, and the operator commands' way into the service's database.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { type Config, ConfigError, loadConfig } from './config.ts'
import { embeddedSettings } from './db/embedded.ts'
import { type Database, openPGlite, openPostgres } from './db/index.ts'

/** The configuration from the environment; a bad one is printed and the process exits 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig()
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : err)
    process.exit(2)
  }
}

/**
 * The database the service uses: PostgreSQL (a pool of `poolSize`) or the embedded one in
 * DATA_DIR, which must exist (else the process exits 2).
 */
export function openServiceDatabase(config: Config, poolSize: number): Promise<Database> {
  if (config.databaseUrl) return Promise.resolve(openPostgres(config.databaseUrl, poolSize))
  // The embedded database belongs to one process: stop the service first.
  const dir = join(config.dataDir, 'pg')
  if (!existsSync(dir)) {
    console.error(`no embedded database in ${dir}: set DATA_DIR (or DATABASE_URL) as the service has it`)
    process.exit(2)
  }
  return openPGlite({ dataDir: dir, settings: embeddedSettings })
}
