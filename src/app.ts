// Builds the application: platform services, every module's service and routes. Never listens;
// entry points (main.ts) and tests own that.
import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify'
import pino, { type Logger } from 'pino'
import { adminConsole } from './admin-console/serve.ts'
import type { Config } from './config.ts'
import type { Database } from './db/index.ts'
import { registerAuth } from './http/auth.ts'
import { type ConnectionLimits, connectionOptionsFor } from './http/connections.ts'
import { registerCors } from './http/cors.ts'
import { registerErrorHandling } from './http/error-handler.ts'
import { registerJsonBody } from './http/json-body.ts'
import { lazySerializers, lazyValidatorCompiler } from './http/lazy-schemas.ts'
import { requestLogView } from './http/log-serializers.ts'
import { registerNulGuard } from './http/nul-guard.ts'
import { registerOpenApi } from './http/openapi.ts'
import { registerRateLimit } from './http/rate-limit.ts'
import { Readiness, type Role, registerProbes } from './http/ready.ts'
import { registerSecurityHeaders, SECURITY_HEADERS } from './http/security-headers.ts'
import { validatorCompiler } from './http/validation.ts'
import { registerWriteLimits } from './http/write-limits.ts'
import { accountHttp } from './modules/account/module.ts'
import { adminHttp } from './modules/admin/module.ts'
import { googleHttp } from './modules/auth/google-module.ts'
import { authHttp } from './modules/auth/module.ts'
import { web3Http } from './modules/auth/web3-module.ts'
import { bookmarksHttp } from './modules/bookmarks/module.ts'
import { chatHttp } from './modules/chat/module.ts'
import { collectionsHttp } from './modules/collections/module.ts'
import { connectionFiltersHttp } from './modules/connections/module.ts'
import type { Services } from './modules/core.ts'
import { escrowHttp } from './modules/escrow/module.ts'
import { feedsHttp } from './modules/feeds/module.ts'
import { filesHttp } from './modules/files/module.ts'
import { liveHttp } from './modules/live/module.ts'
import { notificationsHttp } from './modules/notifications/module.ts'
import { paymentHttp } from './modules/payment/module.ts'
import { referralsHttp } from './modules/referrals/module.ts'
import { reservesHttp } from './modules/reserves/module.ts'
import { restoreHttp } from './modules/restore/module.ts'
import type { CrashHook } from './modules/settlement/outgoing/types.ts'
import { storesHttp } from './modules/stores/module.ts'
import { transactionsHttp } from './modules/transactions/module.ts'
import { verificationHttp } from './modules/verification/module.ts'
import { walletHttp } from './modules/wallet/module.ts'
import { webhooksHttp } from './modules/webhooks/module.ts'
import { withdrawalsHttp } from './modules/withdrawals/module.ts'
import { workHttp } from './modules/work/module.ts'
import { type Clock, systemClock } from './platform/clock.ts'
import type { Mailer } from './platform/mail/mailer.ts'
import { Metrics } from './platform/metrics/index.ts'
import { registerMetrics } from './platform/metrics/plugin.ts'
import { buildServices } from './root.ts'

export interface AppDeps {
  config: Config
  database: Database
  clock?: Clock
  mailer?: Mailer
  logger?: Logger | false
  /** what the process runs (decides what `/ready` checks); default both API and worker */
  role?: Role
  /** services built by the caller (which then closes them); default: built here, closed with the app */
  built?: Awaited<ReturnType<typeof buildServices>>
  /** limits on slow clients (default: a request within 30 s, its headers within 15 s) */
  connectionLimits?: ConnectionLimits
  /** tests only: the outgoing sender's crash points */
  crashHook?: CrashHook
}

/** Each module's routes, registered from the built services. */
const routes: ((app: FastifyInstance, s: Services) => Promise<void>)[] = [
  authHttp,
  accountHttp,
  paymentHttp,
  walletHttp,
  transactionsHttp,
  web3Http,
  googleHttp,
  filesHttp,
  collectionsHttp,
  bookmarksHttp,
  withdrawalsHttp,
  escrowHttp,
  workHttp,
  notificationsHttp,
  liveHttp,
  chatHttp,
  connectionFiltersHttp,
  storesHttp,
  feedsHttp,
  webhooksHttp,
  referralsHttp,
  adminHttp,
  reservesHttp,
  restoreHttp,
  verificationHttp,
]

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps
  const clock = deps.clock ?? systemClock
  const app = Fastify({
    loggerInstance: (deps.logger || pino({ level: 'silent' })).child(
      {},
      { serializers: { req: requestLogView } },
    ) as unknown as FastifyBaseLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id']
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID()
    },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Paths as clients write them: `/v1/wallet/` is `/v1/wallet`, `/v1/wallet//x` is `/v1/wallet/x`.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    ...connectionOptionsFor(deps.connectionLimits),
    // Malformed URLs and over-long path parameters get the error envelope too.
    frameworkErrors: (err, req, res) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      const reply = res as unknown as FastifyReply
      reply
        .code(tooLong ? 414 : 400)
        .headers(SECURITY_HEADERS)
        .header('x-request-id', req.id)
        .send({
          status: 'error',
          message: tooLong ? 'A path parameter is too long' : 'Malformed URL',
          data: { code: 'VALIDATION_ERROR' },
        })
    },
    ajv: { customOptions: { removeAdditional: false } },
    // Outside production, response serializers are compiled at their first use (lazy-schemas.ts).
    ...(config.production ? {} : { schemaController: lazySerializers() }),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance

  app.setValidatorCompiler(config.production ? validatorCompiler : lazyValidatorCompiler(validatorCompiler))
  registerJsonBody(app)
  registerNulGuard(app)
  // Hooks on every request are plain callbacks: an async one costs a promise and a turn of the
  // microtask queue per request.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id)
    done()
  })
  registerErrorHandling(app)
  // nosniff, a CSP that allows nothing, no framing, HSTS: on every answer, errors and 404s included.
  registerSecurityHeaders(app)
  // The OpenAPI document first: it describes every route registered after it, /metrics included.
  await registerOpenApi(app, config)
  // Operations: CORS, request timing and /metrics (the chain is read at scrape time, once open).
  await registerCors(app, config)
  const log = app.log as unknown as Logger
  // Built before any route; closed with the app unless the caller built (and closes) them.
  const built =
    deps.built ??
    (await buildServices({
      config,
      database,
      clock,
      log,
      ...(deps.mailer ? { mailer: deps.mailer } : {}),
      ...(deps.crashHook ? { crashHook: deps.crashHook } : {}),
    }))
  if (!deps.built) app.addHook('onClose', built.close)
  const { services } = built
  app.decorate('services', services)
  // Where this process also runs the jobs, they leave pooled connections to its requests first.
  services.jobs.yieldTo(database.pool)
  const chainOf = () => services.chain
  const metrics = new Metrics({
    db: database.db,
    chain: chainOf,
    log,
    timeoutMs: config.readyTimeoutMs,
    retryStats: database.retryStats,
    pool: database.pool,
    jobsHeldBack: () => services.jobs.heldBack,
    jobsShares: () => services.jobs.shares,
  })
  registerMetrics(app, metrics, { token: config.metricsToken })

  // The Redis client is loaded only when one is configured.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false })
    : undefined
  app.addHook('onClose', async () => {
    await redis?.quit().catch(() => {})
  })
  await registerRateLimit(app, redis)
  registerWriteLimits(app, config.rateLimit.writes)
  registerAuth(app, (bearer) => services.auth.authenticate(bearer))

  const readiness = new Readiness({
    config,
    database,
    chain: chainOf,
    redis,
    log,
    role: deps.role ?? 'all',
    haltedCoins: async () => (await services.settlement.readiness()).haltedCoins,
  })
  app.addHook('onClose', async () => readiness.close())
  app.decorate('ops', { metrics, readiness })
  registerProbes(app, readiness, database)

  for (const register of routes) await register(app, services)
  // The operator console's static files at /admin (over the admin API).
  await app.register(adminConsole)

  return app
}
