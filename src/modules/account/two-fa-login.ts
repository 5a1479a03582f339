// The two-factor login: step one for an account with two-factor on (a temporary token, and the
// emailed code), step two (#5: the code or an authenticator code opens a session), and a new
// emailed code for the login under way (#6).
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { FlowService, RequestMeta, SessionIssuer, TokenService, TwoFaChallenge } from '../auth/types.ts'
import { accountRepo, profileRepo } from './repo.ts'
import { type AccountCodes, unwrap } from './security-codes.ts'
import type { AccountService } from './service.ts'

export class TwoFaLogin {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      tokens: TokenService
      flows: FlowService
      accounts: Pick<AccountService, 'getFullUser'>
      /** opens the session the login ends with (the auth module's) */
      issueSession: SessionIssuer['issue']
    },
    private readonly codes: AccountCodes,
  ) {}

  /** Login step one for an account with two-factor on (plugged into the login of #4). */
  readonly start = async (user: {
    id: string
    email: string
    firstName: string
    twoFaType: string
  }): Promise<TwoFaChallenge> => {
    return this.deps.db.transaction().execute(async (tx) => {
      // A new login keeps the codes mailed for the one it replaces valid until they expire.
      const inherit = await this.deps.flows.endOpenFlows(tx, user.id, 'login_2fa')
      const withCode = user.twoFaType === 'email'
      const flow = await this.deps.flows.start(tx, {
        purpose: 'login_2fa',
        userId: user.id,
        email: user.email,
        withCode,
        inherit,
      })
      if (withCode) await this.deps.flows.mailCode(tx, 'login_2fa', user.email, user.firstName, flow.code!)
      return { twoFaRequired: true as const, twoFaType: user.twoFaType, tempToken: flow.tempToken }
    })
  }

  /** #5: the tempToken of login step one and the emailed code or authenticator code. */
  async complete(tempToken: string, code: string, meta: RequestMeta) {
    const claims = await this.deps.tokens.verifyTemp(tempToken, 'login_2fa')
    if (claims === 'expired') throw errors.invalidCode('The code has expired; log in again')
    if (!claims) throw errors.unauthenticated('Invalid temporary token for this step')
    const outcome = await this.deps.db.transaction().execute(async (tx) => {
      const flow = await this.deps.flows.lock(tx, claims.flowId)
      if (!flow?.userId || flow.purpose !== 'login_2fa') return { error: errors.unauthenticated() }
      const user = await profileRepo.lockUser(tx, flow.userId)
      if (!user) return { error: errors.unauthenticated('The account no longer exists') }
      return this.codes.attempt(
        tx,
        flow,
        async () => {
          if (flow.codeHash) return this.deps.flows.codeMatches(tx, flow, code)
          if (!user.twoFaSecret) return false
          return this.codes.useTotp(tx, user.id, this.codes.openTotp(user.id, user.twoFaSecret), code)
        },
        async () => {
          const token = await this.deps.issueSession(user.id, meta, tx)
          const full = await this.deps.accounts.getFullUser(user.id, tx)
          return { ...full, ...token, isVerified: full.isVerified }
        },
      )
    })
    return unwrap(outcome)
  }

  /**
   * #6: a new code for the email two-factor login under way (its tempToken stays the same, the
   * earlier codes stay valid until they expire, and the wrong attempts already made still count).
   * The answer is the same for any email.
   */
  async resendCode(emailRaw: string) {
    const email = emailRaw.trim().toLowerCase()
    const user = await accountRepo.liveByEmail(this.deps.db, email)
    if (!user?.emailVerified || !user.twoFaEnabled || user.twoFaType !== 'email') return
    await this.deps.db.transaction().execute(async (tx) => {
      const flow = await this.deps.flows.lockLatest(tx, user.id, 'login_2fa')
      const now = this.deps.clock.now()
      if (!flow?.codeHash || flow.consumedAt || flow.deadAt || flow.expiresAt <= now) return
      const code = await this.deps.flows.replaceCode(tx, flow)
      await this.deps.flows.mailCode(tx, 'login_2fa', email, user.firstName, code)
    })
  }
}
