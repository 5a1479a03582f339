// Process entry: `api`, `worker`, `migrate`, or (default) api and worker in one process.
// Owns listening, signals and shutdown.
import { join } from 'node:path'
import pino from 'pino'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { type Database, openPGlite, openPostgres } from './db/index.ts'
import { migrateToLatest } from './db/migrate.ts'

const mode = process.argv[2] ?? 'all'
if (!['all', 'api', 'worker', 'migrate'].includes(mode)) {
  console.error(`usage: main.ts [all|api|worker|migrate] (got "${mode}")`)
  process.exit(2)
}

let config: ReturnType<typeof loadConfig>
try {
  config = loadConfig()
} catch (err) {
  console.error(err instanceof ConfigError ? err.message : err)
  process.exit(2)
}

const log = pino({
  level: config.logLevel,
  redact: ['req.headers.authorization', '*.password', '*.secretKey', '*.privateKey'],
})

async function openDatabase(): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl)
  log.info({ dir: join(config.dataDir, 'pg') }, 'using embedded PostgreSQL (PGlite)')
  return openPGlite({ dataDir: join(config.dataDir, 'pg') })
}

const database = await openDatabase()
const applied = await migrateToLatest(database.db)
if (applied.length) log.info({ applied }, 'migrations applied')
if (mode === 'migrate') {
  await database.close()
  process.exit(0)
}

const app = await buildApp({ config, database, logger: log })
const { jobs } = app.services
if (mode !== 'api' && config.runWorkers) jobs.start()
if (mode !== 'worker') {
  await app.listen({ port: config.port, host: config.host })
} else {
  await app.ready()
}
log.info(
  { mode, publicUrl: config.publicUrl, mail: app.services.mailer.kind, database: database.kind },
  'started',
)

let closing = false
async function shutdown(signal: string) {
  if (closing) return
  closing = true
  log.info({ signal }, 'shutting down')
  const force = setTimeout(() => {
    log.error('shutdown took too long; exiting')
    process.exit(1)
  }, 15_000)
  force.unref()
  try {
    await app.close()
    await jobs.stop()
    await app.services.mailer.close()
    await database.close()
  } catch (err) {
    log.error({ err }, 'error during shutdown')
  }
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
