// What every feature module receives. A module builds its services, adds them to `services` (each
// module declares its own slots by merging into the Services interface) and registers its routes.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { Database, Db } from '../db/index.ts'
import type { Clock } from '../platform/clock.ts'
import type { SecretBox } from '../platform/crypto/secrets.ts'
import type { JobQueue } from '../platform/jobs/queue.ts'
import type { Mailer } from '../platform/mail/mailer.ts'
import type { AccountService } from './account/service.ts'
import type { FlowService } from './auth/flows.ts'
import type { AuthService } from './auth/service.ts'
import type { TokenService } from './auth/tokens.ts'

export interface Services {
  config: Config
  database: Database
  clock: Clock
  jobs: JobQueue
  mailer: Mailer
  /** envelope encryption of secrets at rest (private keys, TOTP secrets) */
  secrets: SecretBox
  tokens: TokenService
  flows: FlowService
  auth: AuthService
  accounts: AccountService
}

export interface Core {
  app: FastifyInstance
  config: Config
  database: Database
  db: Db
  clock: Clock
  log: Logger
  services: Services
}

export type FeatureModule = (core: Core) => Promise<void>

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}
