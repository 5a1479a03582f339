// Account moderation for operators: the admin role (given by ADMIN_EMAILS or by another admin,
// never taken from the last admin or by an admin from themselves) and suspension (a suspended
// account cannot log in, and every session it had is revoked in the same transaction).
import { getAddress, isAddress } from 'viem'
import type { Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import {
  type AccountSearch,
  ADMIN_ROLE,
  moderationRepo,
  STAFF_ROLES,
  type StaffRole,
  USER_ROLE,
} from './moderation-repo.ts'

export type { AccountSearch, StaffRole }
export { ADMIN_ROLE, STAFF_ROLES }

export class AccountModeration {
  constructor(
    private readonly deps: {
      clock: Clock
      /** lower-case emails of the configured admins */
      adminEmails: readonly string[]
      /** revokes every session of the account at once (and whatever caches them) */
      revokeSessions: (tx: Tx, userId: string) => Promise<void>
    },
  ) {}

  /** Whether the account is an admin: the stored role, or a verified email in ADMIN_EMAILS. */
  async isAdmin(ex: Executor, userId: string): Promise<boolean> {
    const u = await moderationRepo.get(ex, userId)
    if (!u || u.suspendedAt) return false
    return u.role === ADMIN_ROLE || this.#configured(u)
  }

  /** The operator role of the account (admin, finance or support), or null for everyone else. */
  async staffRole(ex: Executor, userId: string): Promise<StaffRole | null> {
    const u = await moderationRepo.get(ex, userId)
    if (!u || u.suspendedAt) return null
    if (this.#configured(u)) return ADMIN_ROLE
    return (STAFF_ROLES as readonly string[]).includes(u.role) ? (u.role as StaffRole) : null
  }

  /** An operator's account (admin, finance, support) is suspended or restored by an admin only:
   * support may not lock admins out, nor bring back one another admin suspended. */
  async #assertMayModerate(
    tx: Tx,
    actorId: string,
    target: { role: string; email: string | null; emailVerified: boolean },
  ) {
    if (!(STAFF_ROLES as readonly string[]).includes(target.role) && !this.#configured(target)) return
    if ((await this.staffRole(tx, actorId)) !== ADMIN_ROLE)
      throw errors.forbidden('Only an admin may suspend or unsuspend an operator’s account')
  }

  #configured(u: { email: string | null; emailVerified: boolean }) {
    return !!u.email && u.emailVerified && this.deps.adminEmails.includes(u.email.toLowerCase())
  }

  /** Stores the role of the configured admins that are verified (at start-up and at step-up). */
  promoteConfigured(ex: Executor): Promise<string[]> {
    return moderationRepo.promoteEmails(ex, [...this.deps.adminEmails], this.deps.clock.now())
  }

  get(ex: Executor, userId: string) {
    return moderationRepo.get(ex, userId)
  }

  /** The email of each account of `ids` that has one (for operators' lists). */
  async emails(ex: Executor, ids: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(ids)]
    if (unique.length === 0) return new Map()
    const rows = await moderationRepo.emails(ex, unique)
    return new Map(rows.flatMap((r) => (r.email ? [[r.id, r.email] as const] : [])))
  }

  /** The live account with this email (any case), or undefined. */
  byEmail(ex: Executor, email: string) {
    return moderationRepo.byEmail(ex, email)
  }

  /** The live account signing in with this web3 address (as typed, lower case or EIP-55), or undefined. */
  byWeb3Address(ex: Executor, address: string) {
    const lower = address.toLowerCase()
    const spellings = new Set([address, lower])
    if (isAddress(lower, { strict: false })) spellings.add(getAddress(lower))
    return moderationRepo.byWeb3Address(ex, [...spellings])
  }

  search(ex: Executor, f: AccountSearch) {
    return moderationRepo.search(ex, f)
  }

  /** Gives the admin role (the account must be verified and not suspended). */
  async grantAdmin(tx: Tx, userId: string) {
    const u = await moderationRepo.lock(tx, userId)
    if (!u) throw errors.notFound('user')
    if (!u.emailVerified)
      throw errors.named('ACCOUNT_NOT_VERIFIED', 'Only a verified account can be an admin')
    if (u.suspendedAt) throw errors.named('ACCOUNT_SUSPENDED', 'A suspended account cannot be an admin')
    if (u.role === ADMIN_ROLE) throw errors.named('ROLE_ALREADY_SET', 'The account is an admin already')
    await moderationRepo.setRole(tx, userId, ADMIN_ROLE, this.deps.clock.now())
    return { ...u, role: ADMIN_ROLE }
  }

  /** Takes the admin role away: never from oneself, from a configured admin, or from the last one. */
  async revokeAdmin(tx: Tx, actorId: string, userId: string) {
    if (actorId === userId)
      throw errors.named('OWN_ACCOUNT_REFUSED', 'An admin cannot take the admin role from themselves')
    const admins = await moderationRepo.lockAdmins(tx)
    const u = await moderationRepo.lock(tx, userId)
    if (!u) throw errors.notFound('user')
    if (u.role !== ADMIN_ROLE) throw errors.named('ROLE_NOT_HELD', 'The account is not an admin')
    if (this.#configured(u))
      throw errors.named(
        'ROLE_SET_BY_CONFIG',
        'The account is an admin by ADMIN_EMAILS; remove it there to take the role away',
      )
    if (admins.filter((a) => a.id !== userId).length === 0)
      throw errors.named('LAST_ADMIN', 'The last admin keeps the role')
    await moderationRepo.setRole(tx, userId, USER_ROLE, this.deps.clock.now())
    return { ...u, role: USER_ROLE }
  }

  /**
   * Sets an account's operator role (`user` takes every role away). The rules of the admin role
   * hold for every change: not one's own role, not a configured admin's, never the last admin's;
   * a role is given only to a verified account that is not suspended.
   */
  async setStaffRole(tx: Tx, actorId: string, userId: string, role: StaffRole | typeof USER_ROLE) {
    if (actorId === userId)
      throw errors.named('OWN_ACCOUNT_REFUSED', 'An operator cannot change their own role')
    const admins = await moderationRepo.lockAdmins(tx)
    const u = await moderationRepo.lock(tx, userId)
    if (!u) throw errors.notFound('user')
    if (u.role === role) throw errors.named('ROLE_ALREADY_SET', `The account's role is ${role} already`)
    if (role !== USER_ROLE && !u.emailVerified)
      throw errors.named('ACCOUNT_NOT_VERIFIED', 'Only a verified account can be an operator')
    if (role !== USER_ROLE && u.suspendedAt)
      throw errors.named('ACCOUNT_SUSPENDED', 'A suspended account cannot be an operator')
    if (this.#configured(u))
      throw errors.named(
        'ROLE_SET_BY_CONFIG',
        'The account is an admin by ADMIN_EMAILS; remove it there to change its role',
      )
    if (u.role === ADMIN_ROLE && admins.filter((a) => a.id !== userId).length === 0)
      throw errors.named('LAST_ADMIN', 'The last admin keeps the role')
    await moderationRepo.setRole(tx, userId, role, this.deps.clock.now())
    return { ...u, role }
  }

  /** Suspends an account and revokes its sessions in the same transaction. */
  async suspend(tx: Tx, actorId: string, userId: string, reason: string) {
    if (actorId === userId) throw errors.named('OWN_ACCOUNT_REFUSED', 'An admin cannot suspend themselves')
    const admins = await moderationRepo.lockAdmins(tx)
    const u = await moderationRepo.lock(tx, userId)
    if (!u) throw errors.notFound('user')
    if (u.suspendedAt) throw errors.named('ACCOUNT_ALREADY_SUSPENDED', 'The account is suspended already')
    await this.#assertMayModerate(tx, actorId, u)
    if (u.role === ADMIN_ROLE && admins.filter((a) => a.id !== userId).length === 0)
      throw errors.named('LAST_ADMIN', 'The last admin cannot be suspended')
    const now = this.deps.clock.now()
    await moderationRepo.setSuspended(tx, userId, now, reason, now)
    await this.deps.revokeSessions(tx, userId)
    return { ...u, suspendedAt: now, suspendedReason: reason }
  }

  async unsuspend(tx: Tx, actorId: string, userId: string) {
    const u = await moderationRepo.lock(tx, userId)
    if (!u) throw errors.notFound('user')
    await this.#assertMayModerate(tx, actorId, u)
    if (!u.suspendedAt) throw errors.named('ACCOUNT_NOT_SUSPENDED', 'The account is not suspended')
    await moderationRepo.setSuspended(tx, userId, null, null, this.deps.clock.now())
    return { ...u, suspendedAt: null, suspendedReason: null }
  }
}
