// Accounts as operators see them: search, suspension and the admin role. Each action commits with
// its audit row; suspending or taking the role also ends the account's admin step-ups.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { AccountModeration, AccountSearch, StaffRole } from '../account/types.ts'
import type { AdminAccess } from './access.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

type Row = NonNullable<Awaited<ReturnType<AccountModeration['get']>>>

export function userView(u: Row) {
  return {
    _id: u.id,
    email: u.email,
    firstName: u.firstName,
    lastName: u.lastName,
    userName: u.userName,
    role: u.role,
    isVerified: u.emailVerified,
    twoFaEnabled: u.twoFaEnabled,
    twoFaType: u.twoFaType,
    accountType: u.accountType,
    web3Address: u.web3Address,
    suspended: !!u.suspendedAt,
    suspendedAt: u.suspendedAt,
    suspendedReason: u.suspendedReason,
    lastLoginAt: u.loggedInAt,
    createdAt: u.createdAt,
  }
}

export class AdminUsers {
  constructor(
    private readonly deps: {
      db: Db
      moderation: AccountModeration
      access: AdminAccess
      audit: AdminAudit
      /** revokes every session of every account (AuthService.revokeEveryone) */
      revokeEveryone: (tx: Tx) => Promise<number>
    },
  ) {}

  /**
   * Revokes every session of every account, the caller's too, at once in every process (after a
   * leaked JWT_SECRET, or on a database restored from a backup). Answers how many were live.
   */
  revokeAllSessions(actor: AdminActor, reason: string): Promise<{ revoked: number }> {
    return this.deps.db.transaction().execute(async (tx) => {
      const revoked = await this.deps.revokeEveryone(tx)
      await this.deps.audit.record(tx, actor, {
        action: 'sessions.revoke-all',
        targetType: 'sessions',
        targetId: '*',
        reason,
        details: { revoked },
      })
      return { revoked }
    })
  }

  async search(f: AccountSearch) {
    const { total, rows } = await this.deps.moderation.search(this.deps.db, f)
    return {
      page: f.page,
      pages: Math.ceil(total / f.limit),
      limit: f.limit,
      total,
      data: rows.map(userView),
    }
  }

  async get(id: string) {
    const u = await this.deps.moderation.get(this.deps.db, id)
    if (!u) throw errors.notFound('user')
    return userView(u)
  }

  suspend(actor: AdminActor, id: string, reason: string) {
    return this.moderate(actor, id, reason, 'user.suspend', async (tx) => {
      const u = await this.deps.moderation.suspend(tx, actor.userId, id, reason)
      await this.deps.access.dropElevationsOf(tx, id)
      return u
    })
  }

  unsuspend(actor: AdminActor, id: string, reason: string) {
    return this.moderate(actor, id, reason, 'user.unsuspend', (tx) =>
      this.deps.moderation.unsuspend(tx, actor.userId, id),
    )
  }

  grantAdmin(actor: AdminActor, id: string, reason: string) {
    return this.moderate(actor, id, reason, 'admin.grant', (tx) => this.deps.moderation.grantAdmin(tx, id))
  }

  revokeAdmin(actor: AdminActor, id: string, reason: string) {
    return this.moderate(actor, id, reason, 'admin.revoke', async (tx) => {
      const u = await this.deps.moderation.revokeAdmin(tx, actor.userId, id)
      await this.deps.access.dropElevationsOf(tx, id)
      return u
    })
  }

  /**
   * Sets the operator role (`user` takes it away); the account's step-ups end, so the new role
   * applies from its next second factor.
   */
  setRole(actor: AdminActor, id: string, role: StaffRole | 'user', reason: string) {
    return this.deps.db.transaction().execute(async (tx) => {
      const before = await this.deps.moderation.get(tx, id)
      const u = await this.deps.moderation.setStaffRole(tx, actor.userId, id, role)
      await this.deps.access.dropElevationsOf(tx, id)
      await this.deps.audit.record(tx, actor, {
        action: 'role.set',
        targetType: 'user',
        targetId: id,
        reason,
        details: { role, previous: before?.role ?? null },
      })
      return userView(u)
    })
  }

  /** One change to an account, committed with its audit row; answers the account as it is after. */
  private moderate(
    actor: AdminActor,
    id: string,
    reason: string,
    action: string,
    change: (tx: Tx) => Promise<Row>,
  ) {
    return this.deps.db.transaction().execute(async (tx) => {
      const u = await change(tx)
      await this.deps.audit.record(tx, actor, { action, targetType: 'user', targetId: id, reason })
      return userView(u)
    })
  }
}
