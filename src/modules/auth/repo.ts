// SQL for credentials, sessions and auth flows.
import { notifyAtCommit } from '../../db/ahead.ts'
import type { Executor } from '../../db/index.ts'
import { updateUserRow } from '../../db/user-rows.ts'
import { newId } from '../../platform/crypto/ids.ts'

/** The columns every login path reads of the account it signs in. */
const LOGIN_COLUMNS = [
  'id',
  'email',
  'firstName',
  'passwordHash',
  'emailVerified',
  'twoFaEnabled',
  'twoFaType',
] as const

export const authRepo = {
  findLiveUserByEmail(ex: Executor, email: string) {
    return ex
      .selectFrom('users')
      .select([...LOGIN_COLUMNS, 'status', 'suspendedAt'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  findLiveUserById(ex: Executor, id: string) {
    return ex
      .selectFrom('users')
      .select([...LOGIN_COLUMNS, 'twoFaSecret', 'twoFaLastStep', 'web3Address', 'web3Onboard'])
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  async createSession(ex: Executor, userId: string, ip: string | null, userAgent: string | null, now: Date) {
    const id = newId()
    // The session and the account's last login in one statement.
    await ex
      .with('session', (db) =>
        db
          .insertInto('sessions')
          .values({ id, userId, ip, userAgent: userAgent?.slice(0, 300) ?? null, createdAt: now }),
      )
      .updateTable('users')
      .set({ loggedInAt: now })
      .where('id', '=', userId)
      .execute()
    return id
  },

  /** The live session and its user for a bearer token, or undefined when revoked or deleted. */
  findActiveSession(ex: Executor, sessionId: string, userId: string) {
    return ex
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.userId')
      .select(['sessions.id as sessionId', 'users.id as userId'])
      .where('sessions.id', '=', sessionId)
      .where('sessions.userId', '=', userId)
      .where('sessions.revokedAt', 'is', null)
      .where('users.deletedAt', 'is', null)
      .where('users.suspendedAt', 'is', null)
      .executeTakeFirst()
  },

  /** An account's live sessions, newest first (sessions_user, partial on the live ones). */
  liveSessions(ex: Executor, userId: string, limit: number) {
    return ex
      .selectFrom('sessions')
      .select(['id', 'ip', 'userAgent', 'createdAt'])
      .where('userId', '=', userId)
      .where('revokedAt', 'is', null)
      .orderBy('createdAt', 'desc')
      .limit(limit)
      .execute()
  },

  /** A NOTIFY sent at the commit of `ex`'s transaction (at once without one). */
  notify(ex: Executor, channel: string, payload: string): Promise<void> {
    return notifyAtCommit(ex, channel, payload)
  },

  async isSuspended(ex: Executor, userId: string): Promise<boolean> {
    const row = await ex.selectFrom('users').select('suspendedAt').where('id', '=', userId).executeTakeFirst()
    return !!row?.suspendedAt
  },

  revokeSession(ex: Executor, sessionId: string, now: Date) {
    return ex
      .updateTable('sessions')
      .set({ revokedAt: now })
      .where('id', '=', sessionId)
      .where('revokedAt', 'is', null)
      .execute()
  },

  /** Revokes every session of the user except `keep` (when given). */
  /** Revokes every live session of every account; answers how many. */
  async revokeEverySession(ex: Executor, now: Date): Promise<number> {
    const r = await ex
      .updateTable('sessions')
      .set({ revokedAt: now })
      .where('revokedAt', 'is', null)
      .executeTakeFirst()
    return Number(r.numUpdatedRows)
  },

  revokeAllSessions(ex: Executor, userId: string, now: Date, keep?: string) {
    let q = ex
      .updateTable('sessions')
      .set({ revokedAt: now })
      .where('userId', '=', userId)
      .where('revokedAt', 'is', null)
    if (keep) q = q.where('id', '!=', keep)
    return q.execute()
  },

  setPassword(ex: Executor, userId: string, passwordHash: string, now: Date) {
    return updateUserRow(ex, userId, { passwordHash }, now)
  },

  setEmail(ex: Executor, userId: string, email: string) {
    return ex.updateTable('users').set({ email }).where('id', '=', userId).execute()
  },

  /** Marks a flow used unless it already was; false when it was. */
  async consumeFlow(ex: Executor, id: string, now: Date): Promise<boolean> {
    const res = await ex
      .updateTable('authFlows')
      .set({ consumedAt: now })
      .where('id', '=', id)
      .where('consumedAt', 'is', null)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) === 1
  },

  markEmailVerified(ex: Executor, userId: string, now: Date) {
    return updateUserRow(ex, userId, { emailVerified: true, emailVerifiedAt: now, status: true }, now)
  },

  insertFlow(
    ex: Executor,
    flow: {
      purpose: string
      userId: string | null
      email?: string | null
      address?: string | null
      nonce?: string | null
      message?: string | null
      codeHash: string | null
      expiresAt: Date
      createdAt: Date
    },
  ) {
    const id = newId()
    return ex
      .insertInto('authFlows')
      .values({ id, ...flow })
      .returning(['id'])
      .executeTakeFirstOrThrow()
  },

  lockFlow(ex: Executor, id: string) {
    return ex.selectFrom('authFlows').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
  },

  getFlow(ex: Executor, id: string) {
    return ex.selectFrom('authFlows').selectAll().where('id', '=', id).executeTakeFirst()
  },

  updateFlow(
    ex: Executor,
    id: string,
    set: Partial<{
      attempts: number
      deadAt: Date
      consumedAt: Date
      validatedAt: Date
      userId: string
      email: string
    }>,
  ) {
    return ex.updateTable('authFlows').set(set).where('id', '=', id).execute()
  },

  /** Ends the open flows of one purpose for a user (a newer code replaces older ones). */
  killOpenFlows(ex: Executor, userId: string, purpose: string, now: Date) {
    return ex
      .updateTable('authFlows')
      .set({ deadAt: now })
      .where('userId', '=', userId)
      .where('purpose', '=', purpose)
      .where('consumedAt', 'is', null)
      .where('deadAt', 'is', null)
      .execute()
  },

  /** The newest flow of one purpose for a user, locked (codes sent to a signed-in account). */
  lockLatestFlow(ex: Executor, userId: string, purpose: string) {
    return ex
      .selectFrom('authFlows')
      .selectAll()
      .where('userId', '=', userId)
      .where('purpose', '=', purpose)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .forUpdate()
      .executeTakeFirst()
  },

  /** Replaces the newest code of a live flow (a re-sent code for the same temporary token). */
  setFlowCode(ex: Executor, id: string, codeHash: string) {
    return ex.updateTable('authFlows').set({ codeHash }).where('id', '=', id).execute()
  },

  /** The newest open (not used, ended or expired) flow of one purpose for a user, locked. */
  lockNewestOpenFlow(ex: Executor, userId: string, purpose: string, now: Date) {
    return ex
      .selectFrom('authFlows')
      .selectAll()
      .where('userId', '=', userId)
      .where('purpose', '=', purpose)
      .where('consumedAt', 'is', null)
      .where('deadAt', 'is', null)
      .where('expiresAt', '>', now)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .forUpdate()
      .executeTakeFirst()
  },

  /** The earlier codes of a flow that have not expired, newest first. */
  earlierCodes(ex: Executor, flowId: string, now: Date, limit: number) {
    return ex
      .selectFrom('authFlowCodes')
      .select(['codeHash', 'expiresAt', 'replacedAt'])
      .where('flowId', '=', flowId)
      .where('expiresAt', '>', now)
      .orderBy('replacedAt', 'desc')
      .limit(limit)
      .execute()
  },

  async addEarlierCodes(
    ex: Executor,
    flowId: string,
    codes: ReadonlyArray<{ codeHash: string; expiresAt: Date; replacedAt: Date }>,
  ) {
    if (codes.length === 0) return
    await ex
      .insertInto('authFlowCodes')
      .values(codes.map((c) => ({ flowId, ...c })))
      .onConflict((oc) => oc.columns(['flowId', 'codeHash']).doNothing())
      .execute()
  },

  /** Keeps only the `keep` most recently replaced earlier codes of a flow. */
  async pruneEarlierCodes(ex: Executor, flowId: string, keep: number) {
    await ex
      .deleteFrom('authFlowCodes')
      .where('flowId', '=', flowId)
      .where(
        'codeHash',
        'not in',
        ex
          .selectFrom('authFlowCodes')
          .select('codeHash')
          .where('flowId', '=', flowId)
          .orderBy('replacedAt', 'desc')
          .limit(keep),
      )
      .execute()
  },

  /** Ends every open flow of a user and forgets the email kept on them (account deletion). */
  forgetFlows(ex: Executor, userId: string, now: Date) {
    return ex
      .updateTable('authFlows')
      .set((eb) => ({ deadAt: eb.fn.coalesce('deadAt', eb.val(now)), email: null }))
      .where('userId', '=', userId)
      .execute()
  },

  audit(
    ex: Executor,
    userId: string | null,
    action: string,
    ip: string | null,
    meta: Record<string, unknown> = {},
  ) {
    return ex
      .insertInto('auditLog')
      .values({ id: newId(), userId, action, ip, meta: JSON.stringify(meta) })
      .execute()
  },
}
