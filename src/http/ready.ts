// Liveness (`/health`: the process answers) and readiness (`/ready`: every part this process
// needs answers within READY_TIMEOUT_MS), on the API's port, and for a worker on its own small
// ops server (WORKER_PORT) with `/metrics` beside them. Probes are logged below info.
//
// `/ready` also lists the coins halted by reconciliation (`data.haltedCoins`). A halted coin does
// not make the process unready: everything else (other coins, sign-in, the operator resuming the
// coin) still works, and a 503 would take the whole process out of its load balancer. Operators
// see the halt in the answer (and its message), in the metrics and in the log.
import { access, constants, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { S3Client } from '@aws-sdk/client-s3'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { Database } from '../db/index.ts'
import type { ChainAdapter } from '../platform/chain/types.ts'
import type { Metrics } from '../platform/metrics/index.ts'
import { metricsHandler } from '../platform/metrics/plugin.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** the process's metrics and readiness checks (the worker serves them on its own port) */
    ops: { metrics: Metrics; readiness: Readiness }
  }
}

export type Part = 'database' | 'chain' | 'storage' | 'mail' | 'redis'
/** what the process runs: the API, the background worker, or both */
export type Role = 'all' | 'api' | 'worker'

export interface ReadinessDeps {
  config: Config
  database: Database
  /** the chain adapter, once the application has one */
  chain: () => ChainAdapter | undefined
  redis: Redis | undefined
  log: Logger
  role: Role
  /** the coins halted now (settlement's halts) */
  haltedCoins: () => Promise<HaltedCoin[]>
}

export interface HaltedCoin {
  coin: string
  reason: string
  /** ISO 8601 */
  since: string
}

export interface ReadinessReport {
  ready: boolean
  checks: Partial<Record<Part, 'ok' | 'failed'>>
  failing: Part[]
  /** coins whose payments are paused; absent when they could not be read (the database fails) */
  haltedCoins?: HaltedCoin[]
}

/**
 * The parts a process of this role needs: the database, the chain and the object store always;
 * the mail relay where jobs run (the API only queues mail); Redis where the API's rate limits
 * live. The embedded stand-ins (outbox, disk) are checked like the real parts they replace.
 */
export function partsFor(role: Role, config: Config): Part[] {
  const parts: Part[] = ['database', 'chain', 'storage']
  if (role !== 'api' && config.runWorkers && config.smtpUrl) parts.push('mail')
  if (role !== 'worker' && config.redisUrl) parts.push('redis')
  return parts
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
  })
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer))
}

export class Readiness {
  readonly parts: Part[]
  readonly #deps: ReadinessDeps
  readonly #failing = new Set<Part>()
  #s3: S3Client | undefined

  constructor(deps: ReadinessDeps) {
    this.#deps = deps
    this.parts = partsFor(deps.role, deps.config)
  }

  async #check(part: Part): Promise<void> {
    const { config, database, redis } = this.#deps
    const ms = config.readyTimeoutMs
    switch (part) {
      case 'database':
        return database.ping()
      case 'chain': {
        const chain = this.#deps.chain()
        if (!chain) throw new Error('the chain adapter is not open')
        await chain.blockNumber()
        return
      }
      case 'storage': {
        if (config.s3) {
          // the S3 client and nodemailer (below) are loaded only where those parts are configured
          const { HeadBucketCommand, S3Client } = await import('@aws-sdk/client-s3')
          const { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle, bucket } = config.s3
          this.#s3 ??= new S3Client({
            region,
            forcePathStyle,
            maxAttempts: 1,
            ...(endpoint ? { endpoint } : {}),
            ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
          })
          await this.#s3.send(new HeadBucketCommand({ Bucket: bucket }), {
            abortSignal: AbortSignal.timeout(ms),
          })
          return
        }
        const dir = config.filesDir ?? join(config.dataDir, 'files')
        await mkdir(dir, { recursive: true })
        return access(dir, constants.W_OK)
      }
      case 'mail': {
        const { default: nodemailer } = await import('nodemailer')
        const transport = nodemailer.createTransport({
          url: config.smtpUrl!,
          connectionTimeout: ms,
          greetingTimeout: ms,
          socketTimeout: ms,
        })
        try {
          await transport.verify()
        } finally {
          transport.close()
        }
        return
      }
      case 'redis': {
        if (!redis) throw new Error('no Redis client')
        await redis.ping()
        return
      }
    }
  }

  /** Runs every check at once, each within READY_TIMEOUT_MS; logs a part that fails or recovers. */
  async check(): Promise<ReadinessReport> {
    const { config, log } = this.#deps
    const results = await Promise.all(
      this.parts.map(async (part) => {
        try {
          await withTimeout(this.#check(part), config.readyTimeoutMs)
          if (this.#failing.delete(part)) log.info({ part }, 'readiness: part answers again')
          return [part, 'ok'] as const
        } catch (err) {
          if (!this.#failing.has(part))
            log.warn(
              { part, err: err instanceof Error ? err.message : String(err) },
              'readiness: part unreachable',
            )
          this.#failing.add(part)
          return [part, 'failed'] as const
        }
      }),
    )
    const failing = results.filter(([, r]) => r === 'failed').map(([p]) => p)
    const haltedCoins = failing.includes('database') ? undefined : await this.#halted()
    return {
      ready: failing.length === 0,
      checks: Object.fromEntries(results),
      failing,
      ...(haltedCoins ? { haltedCoins } : {}),
    }
  }

  async #halted(): Promise<HaltedCoin[] | undefined> {
    try {
      return await withTimeout(this.#deps.haltedCoins(), this.#deps.config.readyTimeoutMs)
    } catch (err) {
      this.#deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'readiness: halts unreadable',
      )
      return undefined
    }
  }

  close() {
    this.#s3?.destroy()
  }
}

const health = async () => ({ status: 'success', message: 'ok', data: { uptime: process.uptime() } })

/** Adds `GET /health` and `GET /ready` to `app`. */
export function registerProbes(app: FastifyInstance, readiness: Readiness, database: Database) {
  const quiet = { schema: { hide: true }, logLevel: 'warn' } as const
  app.get('/health', quiet, health)
  app.get('/ready', quiet, async (_req, reply) => {
    const report = await readiness.check()
    const halted = report.haltedCoins ? { haltedCoins: report.haltedCoins } : {}
    if (report.ready) {
      const paused = report.haltedCoins?.map((h) => h.coin) ?? []
      return {
        status: 'success',
        message: paused.length ? `ready; payments paused in ${paused.join(', ')}` : 'ready',
        data: { database: database.kind, checks: report.checks, ...halted },
      }
    }
    return reply.code(503).send({
      status: 'error',
      message: `Not ready: ${report.failing.join(', ')} unreachable`,
      data: { code: 'UNAVAILABLE', failing: report.failing, checks: report.checks, ...halted },
    })
  })
}

/**
 * The worker's ops server: `/health`, `/ready` and `/metrics` only, on `port` (the API's routes
 * are not served by a worker).
 */
export async function startOpsServer(opts: {
  readiness: Readiness
  metrics: Metrics
  database: Database
  config: Config
  log: Logger
  port: number
}): Promise<FastifyInstance> {
  const server = Fastify({
    loggerInstance: opts.log.child({ server: 'worker-ops' }) as unknown as FastifyBaseLogger,
    frameworkErrors: (_err, _req, res) => {
      ;(res as unknown as FastifyReply)
        .code(400)
        .send({ status: 'error', message: 'Malformed URL', data: { code: 'VALIDATION_ERROR' } })
    },
  })
  registerProbes(server, opts.readiness, opts.database)
  server.get('/metrics', { logLevel: 'warn' }, metricsHandler(opts.metrics, opts.config.metricsToken))
  server.setNotFoundHandler((_req, reply) =>
    reply.code(404).send({ status: 'error', message: 'Not found', data: { code: 'NOT_FOUND' } }),
  )
  // Whatever a client sends, the answer is the error envelope.
  server.setErrorHandler((err: { statusCode?: number }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    return reply.code(status).send({
      status: 'error',
      message: status === 500 ? 'Internal error' : 'Bad request',
      data: { code: status === 500 ? 'INTERNAL' : 'VALIDATION_ERROR' },
    })
  })
  await server.listen({ port: opts.port, host: opts.config.host })
  return server
}
