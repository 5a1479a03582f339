// Account security: password change, logout, deletion, two-factor setup (its login: two-fa-login.ts),
// and the codes that confirm sensitive actions (used by other modules through `verifySensitiveCode`).
import type { Config } from '../../config.ts'
import type { Db, Tx } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { hashPassword, isStrongPassword } from '../../platform/crypto/passwords.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { FlowService, RequestMeta, SessionIssuer, TokenService } from '../auth/types.ts'
import type { EventService } from '../events/types.ts'
import { confirmAccountPassword, confirmPassword } from './password-guard.ts'
import { accountRepo, profileRepo } from './repo.ts'
import { AccountCodes, type Outcome, unwrap } from './security-codes.ts'
import { securityRepo } from './security-repo.ts'
import type { AccountService } from './service.ts'
import { tagService } from './tags.ts'
import { matchTotpStep, newTotpSecret, totp } from './totp.ts'
import { TwoFaLogin } from './two-fa-login.ts'

export type TwoFaType = 'email' | 'google_auth'

/**
 * Flow purposes of codes that go to a signed-in account (no temporary token): the code that
 * proves a new two-factor method, the code of a sensitive action, and the attempt counter of
 * authenticator codes for sensitive actions.
 */
const SETUP = 'two_fa_setup'
const SENSITIVE = 'two_fa'
const TOTP_GUARD = 'two_fa_totp'

/**
 * What must hold before a session sets up two-factor (the admin module's: an account that unlocks
 * the console with a passkey proves it first). Throws the error to answer.
 */
export interface TwoFaSetupGate {
  assertMaySetUp(auth: AuthContext): Promise<void>
}

/** Confirms the account password of an action (see AccountSecurityService.confirmPassword). */
export type ConfirmPassword = AccountSecurityService['confirmPassword']

export class AccountSecurityService {
  readonly #codes: AccountCodes
  /** the two-factor login (two-fa-login.ts) */
  readonly login: TwoFaLogin

  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      config: Config
      secrets: SecretBox
      tokens: TokenService
      flows: FlowService
      accounts: AccountService
      /** opens the session a two-factor login ends with */
      issueSession: SessionIssuer['issue']
      /** revocations, so every API process forgets the sessions at once */
      sessions: Pick<SessionIssuer, 'revokeAll' | 'revokeOne'>
      /** `account.deleted`, so other modules erase what they keep of the person */
      events: Pick<EventService, 'emit'>
      /** checked before a two-factor set-up starts and before it is confirmed */
      setupGate?: TwoFaSetupGate
    },
  ) {
    this.#codes = new AccountCodes(deps)
    this.login = new TwoFaLogin(deps, this.#codes)
  }

  // ---- passwords, sessions, deletion ----------------------------------------------------------

  /** #38: the old password must be right; every other session is revoked, the caller's stays. */
  async changePassword(
    userId: string,
    sessionId: string,
    oldPassword: string,
    newPassword: string,
    meta: RequestMeta,
  ) {
    const user = await accountRepo.getUser(this.deps.db, userId)
    if (!user) throw errors.unauthenticated()
    await this.#confirmPassword(
      user,
      oldPassword,
      'password.change',
      meta.ip,
      'The current password is wrong',
    )
    if (oldPassword === newPassword)
      throw errors.field('/newPassword', 'The new password must differ from the current one')
    if (!isStrongPassword(newPassword)) throw errors.weakPassword('/newPassword')
    const passwordHash = await hashPassword(newPassword)
    await this.deps.db.transaction().execute(async (tx) => {
      const now = this.deps.clock.now()
      await securityRepo.setPassword(tx, userId, passwordHash, now)
      await this.deps.sessions.revokeAll(tx, userId, sessionId)
      await this.deps.flows.endAll(tx, userId, 'reset_password', now)
      await securityRepo.audit(tx, { userId, action: 'password.changed', ip: meta.ip })
    })
  }

  /** #45: revokes only the presented session. */
  async logout(userId: string, sessionId: string) {
    await this.deps.sessions.revokeOne(this.deps.db, userId, sessionId)
  }

  /**
   * #46: with the right password, revokes every session and removes the personal data; the email
   * can be registered again. Wallets, ledger, transactions and withdrawals are kept.
   */
  async deleteAccount(userId: string, password: string, meta: RequestMeta) {
    const user = await accountRepo.getUser(this.deps.db, userId)
    if (!user) throw errors.unauthenticated()
    await this.#confirmPassword(user, password, 'account.delete', meta.ip, 'The password is wrong')
    await this.deps.db.transaction().execute(async (tx) => {
      const now = this.deps.clock.now()
      const locked = await profileRepo.lockUser(tx, userId)
      if (!locked) throw errors.unauthenticated()
      await tagService.swap(tx, await profileRepo.userTagIds(tx, userId), [])
      await profileRepo.anonymise(tx, userId, locked.email, now)
      await this.deps.sessions.revokeAll(tx, userId)
      await this.deps.flows.forgetAccount(tx, userId, now)
      await securityRepo.audit(tx, { userId, action: 'account.deleted', ip: meta.ip })
      await this.deps.events.emit(tx, {
        type: 'account.deleted',
        actorId: userId,
        audience: [],
        data: { userId },
        key: `account.deleted:${userId}`,
      })
    })
  }

  // ---- two-factor setup -----------------------------------------------------------------------

  /**
   * #41: starts setting up a method. `email` mails a code; `google_auth` returns a new TOTP secret
   * (sealed at rest) and its otpauth URI. Nothing changes until #42 proves the method.
   */
  async initiateTwoFa(auth: AuthContext, type: TwoFaType) {
    const { userId } = auth
    await this.deps.setupGate?.assertMaySetUp(auth)
    const user = await accountRepo.getUser(this.deps.db, userId)
    if (!user) throw errors.unauthenticated()
    if (user.twoFaEnabled)
      throw errors.conflict('Two-factor authentication is already on', 'TWO_FACTOR_ALREADY_ENABLED')
    if (type === 'email' && !user.email)
      throw errors.named('ACCOUNT_HAS_NO_EMAIL', 'The account has no email address')
    return this.deps.db.transaction().execute(async (tx) => {
      const now = this.deps.clock.now()
      if (type === 'email') {
        await securityRepo.putSetup(tx, userId, 'email', null, now)
        const code = await this.#codes.newFlow(tx, userId, SETUP, true)
        await this.deps.flows.mailCode(tx, 'two_fa', user.email!, user.firstName, code!)
        return { type }
      }
      const secret = newTotpSecret()
      await securityRepo.putSetup(tx, userId, 'google_auth', this.#codes.sealTotp(userId, secret), now)
      await this.#codes.newFlow(tx, userId, SETUP, false)
      const otpauthUrl = totp(secret, user.email || user.userName).toString()
      return { type, secret, otpauthUrl }
    })
  }

  /** #42: the code of the method being set up turns two-factor on. */
  async activateTwoFa(auth: AuthContext, code: string) {
    const { userId } = auth
    await this.deps.setupGate?.assertMaySetUp(auth)
    const outcome = await this.deps.db.transaction().execute(async (tx): Promise<Outcome<void>> => {
      const user = await profileRepo.lockUser(tx, userId)
      if (!user) return { error: errors.unauthenticated() }
      if (user.twoFaEnabled)
        return {
          error: errors.conflict('Two-factor authentication is already on', 'TWO_FACTOR_ALREADY_ENABLED'),
        }
      const setup = await securityRepo.getSetup(tx, userId)
      const flow = setup && (await this.deps.flows.lockLatest(tx, userId, SETUP))
      if (!setup || !flow)
        return {
          error: errors.invalidCode(
            'No two-factor setup in progress; start one with /v1/account/initiate/2fa',
          ),
        }
      let step: number | undefined
      return this.#codes.attempt(
        tx,
        flow,
        async () => {
          if (setup.type === 'email') return !!flow.codeHash && this.deps.flows.codeMatches(tx, flow, code)
          step = matchTotpStep(
            this.#codes.openTotp(userId, setup.secret!),
            code,
            this.deps.clock.now().getTime(),
          )
          return step !== undefined
        },
        async () => {
          const now = this.deps.clock.now()
          await securityRepo.setTwoFa(
            tx,
            userId,
            { enabled: true, type: setup.type, secret: setup.secret, lastStep: step ?? null },
            now,
          )
          await securityRepo.deleteSetup(tx, userId)
        },
      )
    })
    unwrap(outcome)
  }

  /** #43: a current code of the active method (authenticator code, or a code from #44) turns it off. */
  async deactivateTwoFa(userId: string, code: string) {
    const user = await accountRepo.getUser(this.deps.db, userId)
    if (!user) throw errors.unauthenticated()
    if (!user.twoFaEnabled)
      throw errors.named('TWO_FACTOR_NOT_ENABLED', 'Two-factor authentication is not on')
    await this.verifySensitiveCode(userId, code, async (tx) => {
      await securityRepo.setTwoFa(
        tx,
        userId,
        { enabled: false, type: '', secret: null, lastStep: null },
        this.deps.clock.now(),
      )
    })
  }

  /**
   * Turns the account's two-factor off without a code, in the caller's transaction: an admin
   * clearing an operator's lost second factor (the admin module audits it). Answers whether it was on.
   */
  async clearTwoFa(tx: Tx, userId: string): Promise<boolean> {
    const user = await accountRepo.getUser(tx, userId)
    if (!user?.twoFaEnabled) return false
    await securityRepo.setTwoFa(
      tx,
      userId,
      { enabled: false, type: '', secret: null, lastStep: null },
      this.deps.clock.now(),
    )
    await securityRepo.deleteSetup(tx, userId)
    return true
  }

  // ---- sensitive actions ----------------------------------------------------------------------

  /**
   * #44: mails a 6-digit code for a sensitive action (earlier unexpired ones stay valid). A `password`,
   * when sent, must be right. With an authenticator app on, its codes are the ones to use, so no
   * mail is sent (422).
   */
  async sendSensitiveCode(userId: string, opts: { emailType?: string; password?: string }) {
    if (opts.emailType !== undefined && opts.emailType !== 'two_fa')
      throw errors.field('/emailType', 'emailType must be two_fa')
    const user = await accountRepo.getUser(this.deps.db, userId)
    if (!user) throw errors.unauthenticated()
    if (opts.password !== undefined)
      await this.#confirmPassword(user, opts.password, 'two_fa.code', null, 'The password is wrong')
    if (user.twoFaEnabled && user.twoFaType === 'google_auth')
      throw errors.named(
        'TWO_FACTOR_USES_APP',
        'Two-factor uses an authenticator app: use its current code instead',
      )
    if (!user.email) throw errors.named('ACCOUNT_HAS_NO_EMAIL', 'The account has no email address')
    await this.deps.db.transaction().execute(async (tx) => {
      const code = await this.#codes.newFlow(tx, userId, SENSITIVE, true)
      await this.deps.flows.mailCode(tx, 'two_fa', user.email!, user.firstName, code!)
    })
  }

  /**
   * Checks the code that confirms a sensitive action of `userId` and uses it up: the current
   * authenticator code when two-factor is `google_auth` (each step once), otherwise the latest
   * code mailed by POST /v1/account/2fa/email (single use, 15 minutes). Wrong codes count; the
   * fifth wrong one kills the code (email) or locks authenticator codes for 15 minutes; both
   * answer 429 TOO_MANY_ATTEMPTS. A wrong or expired code is 400 INVALID_CODE.
   *
   * `then` runs in the same transaction once the code is accepted (a failure in it rolls the use
   * of the code back); its result is returned.
   */
  async verifySensitiveCode<T = void>(
    userId: string,
    code: string,
    then?: (tx: Tx) => Promise<T>,
  ): Promise<T> {
    const outcome = await this.deps.db.transaction().execute(async (tx): Promise<Outcome<T>> => {
      const user = await profileRepo.lockUser(tx, userId)
      if (!user) return { error: errors.unauthenticated() }
      const done = async () => (then ? then(tx) : (undefined as T))
      if (user.twoFaEnabled && user.twoFaType === 'google_auth' && user.twoFaSecret) {
        let flow = await this.deps.flows.lockLatest(tx, userId, TOTP_GUARD)
        const now = this.deps.clock.now()
        if (!flow || flow.consumedAt || flow.expiresAt <= now) {
          await this.#codes.newFlow(tx, userId, TOTP_GUARD, false)
          flow = await this.deps.flows.lockLatest(tx, userId, TOTP_GUARD)
        }
        const secret = this.#codes.openTotp(userId, user.twoFaSecret)
        return this.#codes.attempt(
          tx,
          flow!,
          () => this.#codes.useTotp(tx, userId, secret, code),
          done,
          'Wrong code; after 5 wrong codes authenticator codes are refused for 15 minutes',
        )
      }
      const flow = await this.deps.flows.lockLatest(tx, userId, SENSITIVE)
      if (!flow?.codeHash)
        return { error: errors.invalidCode('No code was requested; request one with /v1/account/2fa/email') }
      // After the latest code was used, another code is not "already used": none is pending.
      if (flow.consumedAt && !(await this.deps.flows.codeMatches(tx, flow, code)))
        return { error: errors.invalidCode('No code is pending; request one with /v1/account/2fa/email') }
      return this.#codes.attempt(tx, flow, () => this.deps.flows.codeMatches(tx, flow, code), done)
    })
    return unwrap(outcome)
  }

  /**
   * The password of an action another module guards (a withdrawal, a key export, an escrow
   * payment), with wrong ones counted per account; answers whether two-factor login is on, so the
   * caller can ask for its code.
   */
  async confirmPassword(
    userId: string,
    password: string,
    action: string,
    ip: string | null,
    message = 'Wrong password',
  ): Promise<{ twoFaEnabled: boolean }> {
    return confirmAccountPassword(this.deps.db, {
      userId,
      password,
      action,
      ip,
      now: this.deps.clock.now(),
      message,
    })
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** The account password, with wrong ones counted per account (see password-guard.ts). */
  #confirmPassword(
    user: { id: string; passwordHash: string | null },
    password: string,
    action: string,
    ip: string | null,
    message: string,
  ) {
    return confirmPassword(this.deps.db, {
      userId: user.id,
      passwordHash: user.passwordHash,
      password,
      action,
      ip,
      now: this.deps.clock.now(),
      message,
    })
  }
}
