// SQL of account moderation: the admin role, suspension, and the operator's search of accounts.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'

export const ADMIN_ROLE = 'admin'
export const USER_ROLE = 'user'
/** operators' roles narrower than admin: money actions (finance), read-only plus customer care (support) */
export const FINANCE_ROLE = 'finance'
export const SUPPORT_ROLE = 'support'
export const STAFF_ROLES = [ADMIN_ROLE, FINANCE_ROLE, SUPPORT_ROLE] as const
export type StaffRole = (typeof STAFF_ROLES)[number]

const MODERATION_COLUMNS = [
  'id',
  'email',
  'firstName',
  'lastName',
  'userName',
  'role',
  'emailVerified',
  'twoFaEnabled',
  'twoFaType',
  'accountType',
  'web3Address',
  'suspendedAt',
  'suspendedReason',
  'loggedInAt',
  'createdAt',
] as const

export type ModeratedUser = Awaited<ReturnType<typeof moderationRepo.get>> & {}

export interface AccountSearch {
  q?: string | undefined
  role?: string | undefined
  suspended?: boolean | undefined
  /** created at or after `from`, before `to` */
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

export const moderationRepo = {
  /** The emails of the given accounts (an erased account has none). */
  emails(ex: Executor, ids: string[]) {
    return ex.selectFrom('users').select(['id', 'email']).where('id', 'in', ids).execute()
  },

  get(ex: Executor, id: string) {
    return ex
      .selectFrom('users')
      .select(MODERATION_COLUMNS)
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** The live account with this email, any case (users_email_live). */
  byEmail(ex: Executor, email: string) {
    return ex
      .selectFrom('users')
      .select(MODERATION_COLUMNS)
      .where(sql<string>`lower(email)`, '=', email.toLowerCase())
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** The live account whose web3 sign-in address is one of these spellings (users_web3_address). */
  byWeb3Address(ex: Executor, spellings: string[]) {
    return ex
      .selectFrom('users')
      .select(MODERATION_COLUMNS)
      .where('web3Address', 'in', spellings)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  lock(tx: Tx, id: string) {
    return tx
      .selectFrom('users')
      .select(MODERATION_COLUMNS)
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .forNoKeyUpdate()
      .executeTakeFirst()
  },

  /** The live, not suspended admins, locked (serialises "never the last admin" checks). */
  lockAdmins(tx: Tx) {
    return tx
      .selectFrom('users')
      .select('id')
      .where('role', '=', ADMIN_ROLE)
      .where('deletedAt', 'is', null)
      .where('suspendedAt', 'is', null)
      .orderBy('id')
      .forNoKeyUpdate()
      .execute()
  },

  async setRole(tx: Tx, id: string, role: string, now: Date) {
    await tx
      .updateTable('users')
      .set((eb) => ({ role, updatedAt: now, version: eb('version', '+', 1) }))
      .where('id', '=', id)
      .execute()
  },

  async setSuspended(tx: Tx, id: string, at: Date | null, reason: string | null, now: Date) {
    await tx
      .updateTable('users')
      .set((eb) => ({
        suspendedAt: at,
        suspendedReason: reason,
        updatedAt: now,
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .execute()
  },

  /** Gives the admin role to the verified, live accounts of these emails; returns their ids. */
  async promoteEmails(ex: Executor, emails: string[], now: Date): Promise<string[]> {
    if (emails.length === 0) return []
    const rows = await ex
      .updateTable('users')
      .set((eb) => ({ role: ADMIN_ROLE, updatedAt: now, version: eb('version', '+', 1) }))
      .where((eb) => eb(eb.fn('lower', ['email']), 'in', emails))
      .where('emailVerified', '=', true)
      .where('deletedAt', 'is', null)
      .where('role', '!=', ADMIN_ROLE)
      .returning('id')
      .execute()
    return rows.map((r) => r.id)
  },

  async search(ex: Executor, f: AccountSearch) {
    let q = ex.selectFrom('users').where('deletedAt', 'is', null)
    if (f.role !== undefined) q = q.where('role', '=', f.role)
    if (f.suspended === true) q = q.where('suspendedAt', 'is not', null)
    if (f.suspended === false) q = q.where('suspendedAt', 'is', null)
    if (f.from) q = q.where('createdAt', '>=', f.from)
    if (f.to) q = q.where('createdAt', '<', f.to)
    const text = f.q?.trim().toLowerCase()
    if (text) {
      const like = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
      q = q.where((eb) =>
        eb.or([
          eb('id', '=', text),
          eb(eb.fn('lower', ['email']), 'like', like),
          eb(eb.fn('lower', ['userName']), 'like', like),
          eb(sql`lower(first_name || ' ' || last_name)`, 'like', like),
          eb(eb.fn('lower', ['web3Address']), '=', text),
        ]),
      )
    }
    return countedPage(
      q,
      (q) => q.select(MODERATION_COLUMNS),
      { by: ['createdAt', 'id'], first: 'newest' },
      f,
    )
  },
}
