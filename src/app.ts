// Builds the application: platform services, every module's service and routes. Never listens;
// entry points (main.ts) and tests own that.
import { randomUUID } from 'node:crypto'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify'
import { Redis } from 'ioredis'
import pino, { type Logger } from 'pino'
import { type Config, notInProduction } from './config.ts'
import type { Database } from './db/index.ts'
import { registerAuth } from './http/auth.ts'
import { connectionOptions } from './http/connections.ts'
import { registerCors } from './http/cors.ts'
import { registerErrorHandling } from './http/error-handler.ts'
import { registerJsonBody } from './http/json-body.ts'
import { requestLogView } from './http/log-serializers.ts'
import { registerNulGuard } from './http/nul-guard.ts'
import { registerOpenApi } from './http/openapi.ts'
import { registerRateLimit } from './http/rate-limit.ts'
import { Readiness, type Role, registerProbes } from './http/ready.ts'
import { validatorCompiler } from './http/validation.ts'
import { accountModule } from './modules/account/module.ts'
import { AccountService } from './modules/account/service.ts'
import { FlowService } from './modules/auth/flows.ts'
import { authRoutes } from './modules/auth/routes.ts'
import { AuthService } from './modules/auth/service.ts'
import { TokenService } from './modules/auth/tokens.ts'
import { web3Module } from './modules/auth/web3-module.ts'
import { collectionsModule } from './modules/collections/module.ts'
import type { FeatureModule, Services } from './modules/core.ts'
import { escrowModule } from './modules/escrow/module.ts'
import { filesModule } from './modules/files/module.ts'
import { paymentModule } from './modules/payment/module.ts'
import { settlementModule } from './modules/settlement/module.ts'
import { walletModule } from './modules/wallet/module.ts'
import { withdrawalsModule } from './modules/withdrawals/module.ts'
import { workModule } from './modules/work/module.ts'
import { type Clock, systemClock } from './platform/clock.ts'
import { createSecretBox } from './platform/crypto/secrets.ts'
import { JobQueue } from './platform/jobs/queue.ts'
import { createOutboxMailer, createSmtpMailer, type Mailer } from './platform/mail/mailer.ts'
import { Metrics } from './platform/metrics/index.ts'
import { registerMetrics } from './platform/metrics/plugin.ts'

export interface AppDeps {
  config: Config
  database: Database
  clock?: Clock
  mailer?: Mailer
  logger?: Logger | false
  /** what the process runs (decides what `/ready` checks); default both API and worker */
  role?: Role
}

/** Feature modules in dependency order: a module may use the services of those before it. */
const modules: FeatureModule[] = [
  accountModule,
  paymentModule,
  walletModule,
  settlementModule,
  web3Module,
  filesModule,
  collectionsModule,
  withdrawalsModule,
  escrowModule,
  workModule,
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
    ...connectionOptions,
    // Malformed URLs and over-long path parameters get the error envelope too.
    frameworkErrors: (err, req, res) => {
      const tooLong = err.code === 'FST_ERR_MAX_PARAM_LENGTH'
      const reply = res as unknown as FastifyReply
      reply
        .code(tooLong ? 414 : 400)
        .header('x-request-id', req.id)
        .send({
          status: 'error',
          message: tooLong ? 'A path parameter is too long' : 'Malformed URL',
          data: { code: 'VALIDATION_ERROR' },
        })
    },
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance

  app.setValidatorCompiler(validatorCompiler)
  registerJsonBody(app)
  registerNulGuard(app)
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })
  registerErrorHandling(app)
  // The OpenAPI document first: it describes every route registered after it, /metrics included.
  await registerOpenApi(app, config)
  // Operations: CORS, request timing and /metrics (the chain is read at scrape time, once open).
  await registerCors(app, config)
  const chainOf = () => app.services?.chain
  const metrics = new Metrics({
    db: database.db,
    chain: chainOf,
    log: app.log as unknown as Logger,
    timeoutMs: config.readyTimeoutMs,
  })
  registerMetrics(app, metrics, { token: config.metricsToken })

  const log = app.log as unknown as Logger
  const db = database.db
  const jobs = new JobQueue(db, log, clock)
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? createSmtpMailer(config.smtpUrl, config.mailFrom)
      : config.production
        ? notInProduction('the mail outbox (SMTP_URL is not set)')
        : createOutboxMailer(db, log, { printText: !config.production }))
  jobs.register('mail.send', (mail) => mailer.send(mail), { maxAttempts: 8, deleteOnSuccess: true })

  const tokens = new TokenService(config.jwtSecret, clock)
  const flows = new FlowService({ db, tokens, clock, config, jobs })
  const accounts = new AccountService({ db, clock })
  const auth = new AuthService({ db, config, clock, tokens, flows, accounts })
  const keys: Record<string, Buffer> = {
    ...config.previousKeyEncryptionKeys,
    [config.keyEncryptionKeyId]: config.keyEncryptionKey,
  }
  const secrets = createSecretBox(keys, config.keyEncryptionKeyId)
  // Each module adds its own services to this object (see modules/core.ts).
  const services = {
    config,
    database,
    clock,
    jobs,
    mailer,
    secrets,
    tokens,
    flows,
    auth,
    accounts,
  } as Services
  app.decorate('services', services)

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false })
    : undefined
  app.addHook('onClose', async () => {
    await redis?.quit().catch(() => {})
  })
  await registerRateLimit(app, redis)
  registerAuth(app, (bearer) => auth.authenticate(bearer))

  const readiness = new Readiness({ config, database, chain: chainOf, redis, log, role: deps.role ?? 'all' })
  app.addHook('onClose', async () => readiness.close())
  app.decorate('ops', { metrics, readiness })
  registerProbes(app, readiness, database)

  await app.register(authRoutes, { auth, config })
  const core = { app, config, database, db, clock, log, services }
  for (const mod of modules) await mod(core)

  return app
}
