// Who may use the admin API, and the step-up that every admin route but the session's own needs:
// an operator (role admin, finance or support; see roles.ts for what each may call) proves a second
// factor and the session of the token they used becomes elevated for a short time
// (ADMIN_SESSION_TTL_MS, 15 minutes by default). The factor is the authenticator app (TOTP, the
// account's two-factor `google_auth`) or one of the operator's passkeys (passkeys.ts); with
// ADMIN_SECOND_FACTOR=totp-or-email an operator without an app may use a mailed code instead. The
// elevation is a row keyed by the session id: it dies with the session (logout, suspension,
// password change), on DELETE /v1/admin/session, when it expires, and when the account stops being
// an operator. A session that made no admin request for
// ADMIN_IDLE_TIMEOUT_MS (4 hours by default) is revoked at its next one.
import type { Db, Tx } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import type { AccountModeration, AccountSecurityService, StaffRole } from '../account/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'
import { passkeysRepo } from './passkeys-repo.ts'
import { adminRepo } from './repo.ts'
import { mayCall, PERMISSIONS_OF, type Permission, rolesFor } from './roles.ts'

/** Activity is written at most this often per session (an idle limit is hours long). */
const TOUCH_EVERY_MS = 60_000

export interface AdminSessionView {
  userId: string
  email: string | null
  elevated: boolean
  /** `totp`, `passkey` or `email` while elevated */
  method: string | null
  expiresAt: Date | null
  /**
   * what the code of POST /v1/admin/session is: `totp` (authenticator app), `email` (code from POST
   * /v1/admin/session/code, only with ADMIN_SECOND_FACTOR=totp-or-email), `passkey` (no code: the
   * operator has only passkeys, POST /v1/admin/session/passkey), or `setup` (an authenticator app
   * must be turned on first: POST /v1/account/initiate/2fa with `google_auth`)
   */
  secondFactor: 'totp' | 'email' | 'passkey' | 'setup'
  /** how many passkeys the operator registered (each unlocks the session too) */
  passkeys: number
  /** the operator's role and what it allows (see the roles table in docs/admin.md) */
  role: StaffRole
  permissions: Permission[]
  /** when the session is revoked if no admin request comes before */
  idleExpiresAt: Date
}

export class AdminAccess {
  constructor(
    private readonly deps: {
      db: Db
      clock: { now(): Date }
      ttlMs: number
      idleMs: number
      secondFactor: 'totp' | 'totp-or-email'
      revokeSession: (tx: Tx, userId: string, sessionId: string) => Promise<void>
      moderation: AccountModeration
      security: Pick<AccountSecurityService, 'verifySensitiveCode' | 'sendSensitiveCode'>
      audit: AdminAudit
    },
  ) {}

  /**
   * 403 unless the caller is an operator; 401 when the session was idle too long (it is revoked
   * then). Answers the operator's role.
   */
  async requireAdmin(auth: AuthContext): Promise<StaffRole> {
    const role = await this.deps.moderation.staffRole(this.deps.db, auth.userId)
    if (!role) throw errors.forbidden('Only an admin may do this')
    const now = this.deps.clock.now()
    const seen = await adminRepo.activity(this.deps.db, auth.sessionId)
    if (seen && now.getTime() - seen.lastActiveAt.getTime() > this.deps.idleMs) {
      await this.deps.db.transaction().execute(async (tx) => {
        await adminRepo.dropElevation(tx, auth.sessionId)
        await adminRepo.dropActivity(tx, auth.sessionId)
        await this.deps.revokeSession(tx, auth.userId, auth.sessionId)
      })
      throw errors.unauthenticated(
        `The session ended after ${Math.round(this.deps.idleMs / 60_000)} minutes without admin activity; sign in again`,
      )
    }
    if (!seen || now.getTime() - seen.lastActiveAt.getTime() >= TOUCH_EVERY_MS)
      await adminRepo.touch(this.deps.db, {
        sessionId: auth.sessionId,
        userId: auth.userId,
        lastActiveAt: now,
      })
    return role
  }

  /**
   * 403 unless the caller is an operator whose session is elevated now and whose role may call the
   * route `operationId` (roles.ts; a route the table does not name is for admins only).
   */
  async requireElevated(auth: AuthContext, operationId?: string): Promise<void> {
    const role = await this.requireAdmin(auth)
    const e = await adminRepo.elevation(this.deps.db, auth.sessionId)
    if (!e || e.userId !== auth.userId || e.expiresAt <= this.deps.clock.now())
      throw errors.forbidden(
        'A fresh second factor is required: POST /v1/admin/session with an authenticator or emailed code',
      )
    if (!mayCall(role, operationId))
      throw errors.forbidden(
        `The ${role} role may not do this; it needs the role ${rolesFor(operationId).join(' or ')}`,
      )
  }

  async status(auth: AuthContext): Promise<AdminSessionView> {
    const role = await this.requireAdmin(auth)
    const [user, e, passkeys] = await Promise.all([
      this.deps.moderation.get(this.deps.db, auth.userId),
      adminRepo.elevation(this.deps.db, auth.sessionId),
      passkeysRepo.count(this.deps.db, auth.userId),
    ])
    const now = this.deps.clock.now()
    const live = e && e.expiresAt > now ? e : undefined
    const totp = !!user?.twoFaEnabled && user.twoFaType === 'google_auth'
    return {
      userId: auth.userId,
      email: user?.email ?? null,
      elevated: !!live,
      method: live?.method ?? null,
      expiresAt: live?.expiresAt ?? null,
      secondFactor: totp
        ? 'totp'
        : this.deps.secondFactor === 'totp-or-email'
          ? 'email'
          : passkeys > 0
            ? 'passkey'
            : 'setup',
      passkeys,
      role,
      permissions: [...PERMISSIONS_OF[role]],
      idleExpiresAt: new Date(now.getTime() + this.deps.idleMs),
    }
  }

  /** Mails a code for the step-up (admins without an authenticator app). */
  async sendCode(auth: AuthContext): Promise<void> {
    const { secondFactor } = await this.status(auth)
    if (secondFactor === 'setup' || secondFactor === 'passkey')
      throw errors.named(
        'AUTHENTICATOR_REQUIRED',
        'Mailed codes do not unlock the admin pages: turn on an authenticator app (POST /v1/account/initiate/2fa with type google_auth)',
      )
    await this.deps.security.sendSensitiveCode(auth.userId, {})
  }

  /** Checks the code and elevates the session; the code is used up only when this commits. */
  async elevate(actor: AdminActor, code: string): Promise<AdminSessionView> {
    const auth = { userId: actor.userId, sessionId: actor.sessionId }
    const before = await this.status(auth)
    if (before.secondFactor === 'passkey')
      throw errors.forbidden(
        'This operator unlocks with a passkey (POST /v1/admin/session/passkey/options, then /v1/admin/session/passkey); an authenticator app can be turned on too',
      )
    if (before.secondFactor === 'setup')
      throw errors.forbidden(
        'An operator needs an authenticator app: turn on two-factor google_auth (POST /v1/account/initiate/2fa) first',
      )
    await this.deps.security.verifySensitiveCode(actor.userId, code, (tx: Tx) =>
      this.elevateIn(tx, actor, before.secondFactor),
    )
    return this.status(auth)
  }

  /** Elevates the actor's session in `tx` after a second factor `method` was proven, audited. */
  async elevateIn(tx: Tx, actor: AdminActor, method: string) {
    const now = this.deps.clock.now()
    // The configured admins' role is stored, so every module that asks for the role sees it.
    await this.deps.moderation.promoteConfigured(tx)
    await adminRepo.elevate(tx, {
      sessionId: actor.sessionId,
      userId: actor.userId,
      method,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.deps.ttlMs),
    })
    await this.deps.audit.record(tx, actor, {
      action: 'admin.session.elevate',
      targetType: 'session',
      targetId: actor.sessionId,
      reason: `second factor (${method})`,
    })
  }

  /** Whether the caller's session is elevated now (no role check: for the operator's own passkeys). */
  async isElevated(auth: AuthContext): Promise<boolean> {
    const e = await adminRepo.elevation(this.deps.db, auth.sessionId)
    return !!e && e.userId === auth.userId && e.expiresAt > this.deps.clock.now()
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
