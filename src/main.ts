// Process entry: `api`, `worker`, `migrate`, or (default) api and worker in one process.
// Owns listening, signals and shutdown.
//
// Shutdown (SIGTERM or SIGINT) runs in dependency order: the HTTP port closes and requests in
// flight finish; the job runner stops claiming and waits for the jobs it runs; then the chain
// (and the embedded dev chain), the rate-limit store, the mailer and the database close. A job cut
// short by the time limit (or by a crash) is left resumable: its lease lapses and any worker runs
// it again.
//
// A worker builds the services and runs their jobs without building the HTTP app; with
// WORKER_PORT it serves `/health`, `/ready` and `/metrics` on that port (nothing else). The API
// serves them beside its routes.
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import pino from 'pino'
import { buildApp } from './app.ts'
import { loadConfigOrExit } from './command-line.ts'
import { ConfigError, notInProduction } from './config.ts'
import { serverDurability } from './db/durability.ts'
import { embeddedSettings, ensureCluster } from './db/embedded.ts'
import { type Database, openPGlite, openPostgres } from './db/index.ts'
import { migrateToLatest } from './db/migrate.ts'
import { migratedTemplateFile } from './db/migrated-template.ts'
import { type HeldLock, holdSessionLock } from './db/session-lock.ts'
import { Readiness, startOpsServer } from './http/ready.ts'
import { reportText } from './modules/restore/service.ts'
import { startChainEarly } from './platform/chain/index.ts'
import { systemClock } from './platform/clock.ts'
import { Metrics } from './platform/metrics/index.ts'
import { buildServices } from './root.ts'

const mode = process.argv[2] ?? 'all'
if (!['all', 'api', 'worker', 'migrate'].includes(mode)) {
  console.error(`usage: main.ts [all|api|worker|migrate] (got "${mode}")`)
  process.exit(2)
}

const config = loadConfigOrExit()

/**
 * LOG_FORMAT=pretty prints human-readable lines through pino-pretty (a development dependency);
 * where it is not installed (a production image), the lines stay JSON and a warning says so.
 */
function prettyTransport(): pino.TransportSingleOptions | undefined {
  if (config.logFormat !== 'pretty') return undefined
  try {
    import.meta.resolve('pino-pretty')
    return { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } }
  } catch {
    console.error('LOG_FORMAT=pretty needs the pino-pretty package (npm install); logging JSON instead')
    return undefined
  }
}

const transport = prettyTransport()
const log = pino({
  level: config.logLevel,
  redact: ['req.headers.authorization', '*.password', '*.secretKey', '*.privateKey'],
  ...(transport ? { transport } : {}),
})

let database: Database | undefined
let built: Awaited<ReturnType<typeof buildServices>> | undefined
let app: FastifyInstance | undefined
let opsServer: FastifyInstance | undefined
let readiness: Readiness | undefined
let started = false
let stopSignal: string | undefined

// Installed before anything opens: a signal during start-up stops the service once the step in
// progress is done, instead of killing it halfway.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopSignal) return
    stopSignal = signal
    if (started) void shutdown(signal)
  })
}

/** The dev chain's EVM starts while the database opens; the services take it once it is open. */
function startChain() {
  if (mode !== 'migrate') startChainEarly(config)
}

async function openDatabase(): Promise<Database> {
  if (config.databaseUrl) {
    startChain()
    return openPostgres(config.databaseUrl, config.databasePoolSize)
  }
  if (config.production) notInProduction('the embedded database (DATABASE_URL is not set)')
  const dir = join(config.dataDir, 'pg')
  // A new data directory is unpacked from the machine's migrated template when there is one for
  // these migrations (src/db/migrated-template.ts), else from its cluster template
  // (src/db/embedded.ts).
  const { unpacked, templateMade, migrated } = await ensureCluster(dir, undefined, () =>
    migratedTemplateFile(),
  )
  const created = migrated
    ? 'from the migrated template'
    : templateMade
      ? 'from a cluster template made now'
      : 'from the cluster template'
  log.info({ dir, ...(unpacked ? { created } : {}) }, 'using embedded PostgreSQL (PGlite)')
  startChain()
  return openPGlite({ dataDir: dir, settings: embeddedSettings })
}

let devChainLock: HeldLock | undefined
/**
 * The in-process dev chain keeps its journal in the database: two processes each running one on
 * the same database would write two diverging chains into it. The second is refused (exit 2); run
 * the other processes with EVM_RPC_URL pointing at the first one's DEVCHAIN_PORT, or at a
 * standalone dev chain (dist/devchain.js).
 */
async function claimDevChain(opened: Database) {
  if (opened.kind !== 'postgres' || config.evmRpcUrl || mode === 'migrate') return
  devChainLock = await holdSessionLock(opened.db, 'workpay:in-process-dev-chain')
  if (!devChainLock)
    throw new ConfigError([
      'another process runs the in-process dev chain on this database: set EVM_RPC_URL to its JSON-RPC (DEVCHAIN_PORT) or to a standalone dev chain',
    ])
}

/**
 * A PostgreSQL server that can lose an answered change (fsync or synchronous_commit off) is
 * refused in production and warned about elsewhere (src/db/durability.ts).
 */
async function checkDurability(opened: Database) {
  if (opened.kind !== 'postgres') return
  const { refused, warnings } = await serverDurability(opened.db)
  if (refused.length && config.production) throw new ConfigError(refused)
  for (const warning of [...refused, ...warnings]) log.warn(warning)
}

async function shutdown(reason: string, exitCode = 0) {
  log.info({ reason }, 'shutting down')
  const force = setTimeout(() => {
    log.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown took too long; exiting')
    process.exit(1)
  }, config.shutdownTimeoutMs)
  force.unref()
  try {
    // HTTP first, then jobs, then what the services opened (the chain, the object store client),
    // then the mailer and the database.
    await opsServer?.close()
    await app?.close()
    readiness?.close()
    if (built) {
      await built.services.jobs.stop()
      log.info('job runner stopped')
      await built.close()
      await built.services.mailer.close()
    }
    await devChainLock?.release()
    await database?.close()
    log.info({ reason }, 'stopped')
  } catch (err) {
    log.error({ err }, 'error during shutdown')
    exitCode = 1
  }
  process.exit(exitCode)
}

/** Milliseconds each start-up step took, logged with `started` (`imports`: since the process began). */
const startupMs: Record<string, number> = { imports: Math.round(performance.now()) }
let stepStarted = performance.now()
function stepDone(step: string) {
  const now = performance.now()
  startupMs[step] = Math.round(now - stepStarted)
  stepStarted = now
}

async function start() {
  database = await openDatabase()
  await checkDurability(database)
  await claimDevChain(database)
  stepDone('database')
  const applied = await migrateToLatest(database.db)
  if (applied.length) log.info({ applied }, 'migrations applied')
  else if (mode === 'migrate') log.info('database up to date: no migration to apply')
  stepDone('migrate')
  if (mode === 'migrate') {
    await database.close()
    process.exit(0)
  }
  if (stopSignal) return

  built = await buildServices({ config, database, clock: systemClock, log })
  stepDone('services')
  const { jobs } = built.services
  if (stopSignal) return
  if (mode !== 'worker')
    app = await buildApp({ config, database, logger: log, role: mode as 'all' | 'api', built })
  stepDone('app')
  if (stopSignal) return
  if (config.restoreMode) {
    // A restored database: nothing reaches outside until an operator has read the report.
    const report = await built.services.restore.service.enter()
    log.warn(
      { event: 'restore.report', report },
      'RESTORE MODE: no workers run; jobs with an outside effect are parked and operator sessions ended (docs/operations.md)',
    )
    for (const line of reportText(report)) log.warn(line)
  } else if (mode !== 'api' && config.runWorkers) {
    // The embedded database is this process's alone: what a previous run left running died with it.
    if (database.kind === 'pglite') {
      const abandoned = await jobs.releaseAbandoned()
      if (abandoned > 0) log.warn({ jobs: abandoned }, 'jobs a previous run left unfinished are resumed')
    }
    jobs.start()
  }
  if (app) {
    await app.listen({ port: config.port, host: config.host })
  } else if (config.workerPort > 0) {
    const { chain, settlement } = built.services
    const metrics = new Metrics({
      db: database.db,
      chain: () => chain,
      log,
      timeoutMs: config.readyTimeoutMs,
      retryStats: database.retryStats,
      pool: database.pool,
    })
    readiness = new Readiness({
      config,
      database,
      chain: () => chain,
      redis: undefined,
      log,
      role: 'worker',
      haltedCoins: async () => (await settlement.readiness()).haltedCoins,
    })
    opsServer = await startOpsServer({ metrics, readiness, database, config, log, port: config.workerPort })
  }
  stepDone('listen')
  startupMs.total = Math.round(performance.now())
  log.info(
    {
      mode,
      httpApp: Boolean(app),
      publicUrl: config.publicUrl,
      mail: built.services.mailer.kind,
      database: database.kind,
      startupMs,
    },
    'started',
  )
}

try {
  await start()
} catch (err) {
  // A configuration only the running service can check (e.g. a cold address against the coins
  // and the platform's own addresses) exits like every configuration error: status 2.
  if (err instanceof ConfigError) {
    log.fatal({ problems: err.problems }, err.message)
    await shutdown('invalid configuration', 2)
  }
  log.fatal({ err }, 'start-up failed')
  await shutdown('start-up failure', 1)
}
started = true
if (stopSignal) await shutdown(stopSignal)
