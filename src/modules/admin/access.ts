// Who may use the admin API, and the step-up that every admin route but the session's own needs:
// an admin proves a second factor (the authenticator code when google_auth is on, otherwise a code
// mailed for sensitive actions) and the session of the token they used becomes elevated for a
// short time (ADMIN_SESSION_TTL_MS, 15 minutes by default). The elevation is a row keyed by the
// session id: it dies with the session (logout, suspension, password change), on DELETE
// /v1/admin/session, when it expires, and when the account stops being an admin.
import type { Db, Tx } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import type { AccountModeration } from '../account/moderation.ts'
import type { AccountSecurityService } from '../account/security.ts'
import type { AdminActor, AdminAudit } from './audit.ts'
import { adminRepo } from './repo.ts'

export interface AdminSessionView {
  userId: string
  email: string | null
  elevated: boolean
  /** `totp` or `email` while elevated */
  method: string | null
  expiresAt: Date | null
  /** what the second factor is: `totp` (authenticator app) or `email` (code from POST /v1/admin/session/code) */
  secondFactor: 'totp' | 'email'
}

export class AdminAccess {
  constructor(
    private readonly deps: {
      db: Db
      clock: { now(): Date }
      ttlMs: number
      moderation: AccountModeration
      security: Pick<AccountSecurityService, 'verifySensitiveCode' | 'sendSensitiveCode'>
      audit: AdminAudit
    },
  ) {}

  /** 403 unless the caller is an admin. */
  async requireAdmin(auth: AuthContext): Promise<void> {
    if (!(await this.deps.moderation.isAdmin(this.deps.db, auth.userId)))
      throw errors.forbidden('Only an admin may do this')
  }

  /** 403 unless the caller is an admin whose session is elevated now. */
  async requireElevated(auth: AuthContext): Promise<void> {
    await this.requireAdmin(auth)
    const e = await adminRepo.elevation(this.deps.db, auth.sessionId)
    if (!e || e.userId !== auth.userId || e.expiresAt <= this.deps.clock.now())
      throw errors.forbidden(
        'A fresh second factor is required: POST /v1/admin/session with an authenticator or emailed code',
      )
  }

  async status(auth: AuthContext): Promise<AdminSessionView> {
    await this.requireAdmin(auth)
    const [user, e] = await Promise.all([
      this.deps.moderation.get(this.deps.db, auth.userId),
      adminRepo.elevation(this.deps.db, auth.sessionId),
    ])
    const live = e && e.expiresAt > this.deps.clock.now() ? e : undefined
    return {
      userId: auth.userId,
      email: user?.email ?? null,
      elevated: !!live,
      method: live?.method ?? null,
      expiresAt: live?.expiresAt ?? null,
      secondFactor: user?.twoFaEnabled && user.twoFaType === 'google_auth' ? 'totp' : 'email',
    }
  }

  /** Mails a code for the step-up (admins without an authenticator app). */
  async sendCode(auth: AuthContext): Promise<void> {
    await this.requireAdmin(auth)
    await this.deps.security.sendSensitiveCode(auth.userId, {})
  }

  /** Checks the code and elevates the session; the code is used up only when this commits. */
  async elevate(actor: AdminActor, code: string): Promise<AdminSessionView> {
    const auth = { userId: actor.userId, sessionId: actor.sessionId }
    const before = await this.status(auth)
    await this.deps.security.verifySensitiveCode(actor.userId, code, async (tx: Tx) => {
      const now = this.deps.clock.now()
      // The configured admins' role is stored, so every module that asks for the role sees it.
      await this.deps.moderation.promoteConfigured(tx)
      await adminRepo.elevate(tx, {
        sessionId: actor.sessionId,
        userId: actor.userId,
        method: before.secondFactor,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.deps.ttlMs),
      })
      await this.deps.audit.record(tx, actor, {
        action: 'admin.session.elevate',
        targetType: 'session',
        targetId: actor.sessionId,
        reason: `second factor (${before.secondFactor})`,
      })
    })
    return this.status(auth)
  }

  /** Ends the step-up of the caller's session (the token stays valid as a normal one). */
  async end(auth: AuthContext): Promise<void> {
    await this.requireAdmin(auth)
    await adminRepo.dropElevation(this.deps.db, auth.sessionId)
  }

  /** Ends every step-up of an account (in the transaction that took its role or suspended it). */
  dropElevationsOf(tx: Tx, userId: string) {
    return adminRepo.dropElevationsOf(tx, userId)
  }
}
