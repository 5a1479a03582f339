// Email accounts: registration, verification, login, and password reset (spec #1–#4, #7–#9).
import type { Config } from '../../config.ts'
import type { Db, Executor } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { hashPassword, isStrongPassword, verifyPassword } from '../../platform/crypto/passwords.ts'
import type { AccountService } from '../account/types.ts'
import type { FlowService } from './flows.ts'
import { authRepo } from './repo.ts'
import type { SessionCache } from './session-cache.ts'
import type { RequestMeta, SessionIssuer } from './sessions.ts'
import type { TokenObject, TokenService } from './tokens.ts'

export type { RequestMeta } from './sessions.ts'

export interface LoginResult extends TokenObject {
  isVerified: boolean
}

/** What login answers when the account has two-factor on: no token until #5. */
export interface TwoFaChallenge {
  twoFaRequired: true
  twoFaType: string
  tempToken: TokenObject
}

/** The second login step for accounts with two-factor on (the account security service's). */
export type TwoFaLoginStarter = (user: {
  id: string
  email: string
  firstName: string
  twoFaType: string
}) => Promise<TwoFaChallenge>

import { suspended } from './sessions.ts'

export class AuthService {
  readonly twoFaLogin: TwoFaLoginStarter
  readonly issueSession: SessionIssuer['issue']

  constructor(
    private readonly deps: {
      db: Db
      config: Config
      clock: Clock
      tokens: TokenService
      flows: FlowService
      sessions: SessionIssuer
      accounts: AccountService
      twoFaLogin: TwoFaLoginStarter
    },
  ) {
    this.twoFaLogin = deps.twoFaLogin
    this.issueSession = deps.sessions.issue
  }

  /** #1 */
  async register(input: {
    firstName: string
    lastName: string
    email: string
    password: string
    confirmPassword: string
    referralCode?: string
    referral?: string
    type?: 'talent' | 'business'
  }) {
    if (input.password !== input.confirmPassword) throw errors.passwordMismatch()
    if (
      input.referral !== undefined &&
      input.referralCode !== undefined &&
      input.referral !== input.referralCode
    )
      throw errors.field('/referral', 'referral and referralCode name the same code; send one, or equal ones')
    const referralCode = input.referralCode ?? input.referral
    if (!isStrongPassword(input.password)) throw errors.weakPassword()
    const email = input.email.trim().toLowerCase()
    if (await this.deps.accounts.emailTaken(this.deps.db, email))
      throw errors.conflict('This email is already registered', 'EMAIL_TAKEN')
    const passwordHash = await hashPassword(input.password)
    return this.deps.db.transaction().execute(async (tx) => {
      const user = await this.deps.accounts.createUser(tx, {
        email,
        firstName: input.firstName.trim(),
        lastName: input.lastName.trim(),
        passwordHash,
        accountType: 'email',
        referralCode: referralCode ?? null,
        referralPath:
          input.referralCode === undefined && input.referral !== undefined ? '/referral' : '/referralCode',
        ...(input.type ? { type: input.type } : {}),
      })
      const flow = await this.deps.flows.start(tx, {
        purpose: 'verify_email',
        userId: user.id,
        email,
        withCode: true,
      })
      await this.deps.flows.mailCode(tx, 'verify_email', email, input.firstName.trim(), flow.code!)
      return { email, tempToken: flow.tempToken }
    })
  }

  /** #2: the code from the verification mail turns the account active and returns the permanent token. */
  async verifyEmail(code: string, tempToken: string, meta: RequestMeta): Promise<LoginResult> {
    return this.deps.flows.redeem(tempToken, 'verify_email', code, { consume: true }, async (tx, flow) => {
      if (!flow.userId) throw errors.invalidCode()
      const user = await authRepo.findLiveUserById(tx, flow.userId)
      if (!user) throw errors.invalidCode()
      const now = this.deps.clock.now()
      await authRepo.markEmailVerified(tx, user.id, now)
      // Web3 accounts confirm the email they gave at onboarding.
      if (flow.email && flow.email !== user.email) await authRepo.setEmail(tx, user.id, flow.email)
      const token = await this.issueSession(user.id, meta, tx)
      return { ...token, isVerified: true }
    })
  }

  /**
   * #3 and #7: the same answer whether or not the email has an account (no enumeration); only a
   * real account gets mail. An unknown email gets a flow with no account behind it, whose code can
   * never be right.
   */
  async startEmailFlow(emailRaw: string, purpose: 'verify_email' | 'reset_password') {
    const email = emailRaw.trim().toLowerCase()
    return this.deps.db.transaction().execute(async (tx) => {
      const user = await authRepo.findLiveUserByEmail(tx, email)
      const eligible = user && (purpose === 'reset_password' ? !!user.passwordHash : !user.emailVerified)
      if (!user || !eligible) {
        const decoy = await this.deps.flows.start(tx, { purpose, userId: null, email: null, withCode: true })
        return { tempToken: decoy.tempToken }
      }
      // The codes of the flow this one replaces stay valid until they expire (mail can arrive late).
      const inherit = await this.deps.flows.endOpenFlows(tx, user.id, purpose)
      const flow = await this.deps.flows.start(tx, {
        purpose,
        userId: user.id,
        email,
        withCode: true,
        inherit,
      })
      await this.deps.flows.mailCode(tx, purpose, email, user.firstName, flow.code!)
      return { tempToken: flow.tempToken }
    })
  }

  /** #4 */
  async login(emailRaw: string, password: string, meta: RequestMeta): Promise<LoginResult | TwoFaChallenge> {
    const email = emailRaw.trim().toLowerCase()
    const user = await authRepo.findLiveUserByEmail(this.deps.db, email)
    const valid = await verifyPassword(user?.passwordHash, password)
    if (!user || !valid) {
      await authRepo.audit(this.deps.db, user?.id ?? null, 'login.failed', meta.ip)
      throw errors.invalidCredentials()
    }
    if (!user.emailVerified) throw errors.emailNotVerified()
    if (user.suspendedAt) throw suspended()
    if (user.twoFaEnabled) {
      return this.twoFaLogin({ id: user.id, email, firstName: user.firstName, twoFaType: user.twoFaType })
    }
    const token = await this.issueSession(user.id, meta)
    return { ...token, isVerified: true }
  }

  /** #8: checks the reset code without using it up; #9 presents it again. */
  async validateResetCode(code: string, tempToken: string): Promise<void> {
    await this.deps.flows.redeem(tempToken, 'reset_password', code, { consume: false }, async () => undefined)
  }

  /** #9: sets the new password and revokes every session. */
  async changePasswordWithCode(
    code: string,
    tempToken: string,
    password: string,
    meta: RequestMeta,
  ): Promise<void> {
    if (!isStrongPassword(password)) throw errors.weakPassword()
    const passwordHash = await hashPassword(password)
    await this.deps.flows.redeem(tempToken, 'reset_password', code, { consume: true }, async (tx, flow) => {
      if (!flow.userId) throw errors.invalidCode()
      const now = this.deps.clock.now()
      await authRepo.setPassword(tx, flow.userId, passwordHash, now)
      await this.deps.sessions.revokeAll(tx, flow.userId)
      await authRepo.audit(tx, flow.userId, 'password.reset', meta.ip)
    })
  }

  /** The in-process session cache (see sessions.ts), when there is one. */
  get sessionCache(): SessionCache | undefined {
    return this.deps.sessions.cache
  }

  /**
   * The one way to change what existing sessions may do: every revocation (logout, password change
   * or reset, suspension, deletion) calls it in its transaction, so every API process drops its
   * cached sessions of the account when that transaction commits.
   */
  sessionsChanged(ex: Executor, userId: string): Promise<void> {
    return this.deps.sessions.changed(ex, userId)
  }

  /** Revokes every session of the account (but `keep`, when given) at once, in every process. */
  revokeSessions(ex: Executor, userId: string, keep?: string): Promise<void> {
    return this.deps.sessions.revokeAll(ex, userId, keep)
  }

  /** Revokes one session of the account at once, in every process (an operator's idle session). */
  revokeSession(ex: Executor, userId: string, sessionId: string): Promise<void> {
    return this.deps.sessions.revokeOne(ex, userId, sessionId)
  }

  /** Revokes every session of every account at once, in every process; answers how many. */
  revokeEveryone(ex: Executor): Promise<number> {
    return this.deps.sessions.revokeEveryone(ex)
  }

  /** An account's live sessions, newest first, for operators (the admin API checks the caller). */
  liveSessions(userId: string, limit: number) {
    return authRepo.liveSessions(this.deps.db, userId, limit)
  }

  /** Resolves a bearer token to its live session; undefined when invalid, revoked or deleted. */
  authenticate(bearer: string): Promise<{ userId: string; sessionId: string } | undefined> {
    return this.deps.sessions.resolve(bearer)
  }
}
