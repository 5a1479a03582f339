// Google sign-in (OpenID Connect): built from GOOGLE_* / OIDC_ISSUER_URL; unconfigured, its routes answer 503.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AccountService } from '../account/types.ts'
import { openIdClient } from './google-oidc.ts'
import { googleRoutes } from './google-routes.ts'
import { GoogleService } from './google-service.ts'
import type { AuthService } from './service.ts'

export function buildGoogle(d: {
  db: Db
  config: Config
  clock: Clock
  log: Logger
  auth: AuthService
  accounts: AccountService
}) {
  const provider = d.config.google ? openIdClient(d.config.google, d.log) : undefined
  return {
    google: new GoogleService({
      db: d.db,
      clock: d.clock,
      log: d.log,
      auth: d.auth,
      accounts: d.accounts,
      provider,
    }),
  }
}

export async function googleHttp(app: FastifyInstance, s: { google: GoogleService; config: Config }) {
  await app.register(googleRoutes, { google: s.google, config: s.config })
}
