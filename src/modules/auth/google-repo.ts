// SQL for Google sign-in: pending authorization requests (single use) and linked identities.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'

const USER_FIELDS = [
  'id',
  'email',
  'firstName',
  'emailVerified',
  'twoFaEnabled',
  'twoFaType',
  'suspendedAt',
] as const

export const googleRepo = {
  insertState(
    ex: Executor,
    row: { stateHash: string; codeVerifier: string; nonce: string; now: Date; expiresAt: Date },
  ) {
    return ex
      .insertInto('oidcStates')
      .values({
        stateHash: row.stateHash,
        codeVerifier: row.codeVerifier,
        nonce: row.nonce,
        createdAt: row.now,
        expiresAt: row.expiresAt,
      })
      .execute()
  },

  /** Forgets requests that expired (used or not) an hour or more ago. */
  deleteExpiredStates(ex: Executor, before: Date) {
    return ex.deleteFrom('oidcStates').where('expiresAt', '<', before).execute()
  },

  /**
   * Uses up a live state in one statement: of two requests presenting it at once, one gets the
   * verifier and nonce, the other nothing.
   */
  takeState(ex: Executor, stateHash: string, now: Date) {
    return ex
      .updateTable('oidcStates')
      .set({ usedAt: now })
      .where('stateHash', '=', stateHash)
      .where('usedAt', 'is', null)
      .where('expiresAt', '>', now)
      .returning(['codeVerifier', 'nonce'])
      .executeTakeFirst()
  },

  /** Serialises sign-ins of one provider identity and of one email until the transaction ends. */
  async lock(tx: Tx, key: string) {
    await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(tx)
  },

  /** The live account an identity is linked to, if any. */
  findLinkedUser(ex: Executor, issuer: string, subject: string) {
    return ex
      .selectFrom('oidcIdentities as i')
      .innerJoin('users as u', 'u.id', 'i.userId')
      .select(USER_FIELDS.map((f) => `u.${f}` as const))
      .where('i.issuer', '=', issuer)
      .where('i.subject', '=', subject)
      .where('u.deletedAt', 'is', null)
      .executeTakeFirst()
  },

  findLiveUserByEmail(ex: Executor, email: string) {
    return ex
      .selectFrom('users')
      .select([...USER_FIELDS])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** Links the identity to `userId` (again, when it was linked to an account since deleted). */
  link(tx: Tx, row: { issuer: string; subject: string; userId: string; email: string; now: Date }) {
    return tx
      .insertInto('oidcIdentities')
      .values({
        issuer: row.issuer,
        subject: row.subject,
        userId: row.userId,
        email: row.email,
        createdAt: row.now,
        lastSignInAt: row.now,
      })
      .onConflict((oc) =>
        oc.columns(['issuer', 'subject']).doUpdateSet({
          userId: row.userId,
          email: row.email,
          lastSignInAt: row.now,
        }),
      )
      .execute()
  },

  touch(tx: Tx, row: { issuer: string; subject: string; email: string; now: Date }) {
    return tx
      .updateTable('oidcIdentities')
      .set({ email: row.email, lastSignInAt: row.now })
      .where('issuer', '=', row.issuer)
      .where('subject', '=', row.subject)
      .execute()
  },

  /** The identities linked to an account (for tests and support). */
  identitiesOf(ex: Executor, userId: string) {
    return ex
      .selectFrom('oidcIdentities')
      .select(['issuer', 'subject', 'email'])
      .where('userId', '=', userId)
      .execute()
  },
}
