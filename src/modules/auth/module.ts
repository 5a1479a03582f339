// Email accounts and sessions (spec #1–#4, #7–#9): tokens, the code flows, sessions, and the
// sign-up and login service.
import type { FastifyInstance } from 'fastify'
import { type Config, jwtRotation } from '../../config.ts'
import { codesRotation } from '../../config-secrets.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { CODES_KEY_LABEL, CodeHasher } from '../../platform/crypto/codes.ts'
import { DerivedKeyRing } from '../../platform/crypto/key-ring.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { AccountService } from '../account/types.ts'
import { FlowService } from './flows.ts'
import { authRoutes } from './routes.ts'
import { AuthService, type TwoFaLoginStarter } from './service.ts'
import type { SessionCache } from './session-cache.ts'
import { SessionIssuer } from './sessions.ts'
import { TokenService } from './tokens.ts'

/** Checks a code of a flow (account security's code-confirmed changes use it too). */
export { checkFlowCode } from './flows.ts'

/** What every signed-in flow builds on: tokens, code flows (mailed through `jobs`), sessions. */
export function buildAuthBase(d: {
  db: Db
  config: Config
  clock: Clock
  jobs: JobQueue
  /** live sessions cached in process (startSessionCache) */
  sessionCache?: SessionCache
}) {
  const tokens = new TokenService(jwtRotation(d.config), d.clock)
  // Codes are hashed with a key of their own (CODES_SECRET); hashes stored before key ids were are
  // still checked with JWT_SECRET's secrets until they expire.
  const codes = new CodeHasher(new DerivedKeyRing(codesRotation(d.config), CODES_KEY_LABEL, d.clock), () =>
    tokens.codeSecrets(),
  )
  const flows = new FlowService({ db: d.db, tokens, codes, clock: d.clock, config: d.config, jobs: d.jobs })
  const sessions = new SessionIssuer({ db: d.db, clock: d.clock, tokens, cache: d.sessionCache })
  return { tokens, flows, sessions }
}

export function buildAuth(
  d: ReturnType<typeof buildAuthBase> & {
    db: Db
    config: Config
    clock: Clock
    accounts: AccountService
    twoFaLogin: TwoFaLoginStarter
  },
) {
  return { auth: new AuthService(d) }
}

export async function authHttp(app: FastifyInstance, s: { auth: AuthService; config: Config }) {
  await app.register(authRoutes, { auth: s.auth, config: s.config })
}
