// The SQL of account security: two-factor setups and state, the password, the audit rows of
// security events, and the per-account serialisation of password checks.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { updateUserRow } from '../../db/user-rows.ts'
import { newId } from '../../platform/crypto/ids.ts'

export const securityRepo = {
  getSetup(ex: Executor, userId: string) {
    return ex.selectFrom('twoFaSetups').selectAll().where('userId', '=', userId).executeTakeFirst()
  },

  async putSetup(ex: Executor, userId: string, type: string, secret: string | null, now: Date) {
    await ex
      .insertInto('twoFaSetups')
      .values({ userId, type, secret, createdAt: now })
      .onConflict((oc) => oc.column('userId').doUpdateSet({ type, secret, createdAt: now }))
      .execute()
  },

  async deleteSetup(ex: Executor, userId: string) {
    await ex.deleteFrom('twoFaSetups').where('userId', '=', userId).execute()
  },

  async setTwoFa(
    ex: Executor,
    userId: string,
    set: { enabled: boolean; type: string; secret: string | null; lastStep: number | null },
    now: Date,
  ) {
    await updateUserRow(
      ex,
      userId,
      {
        twoFaEnabled: set.enabled,
        twoFaType: set.type,
        twoFaSecret: set.secret,
        twoFaLastStep: set.lastStep,
      },
      now,
    )
  },

  /** Records a used TOTP step; false when that step (or a later one) was already used. */
  async useTotpStep(ex: Executor, userId: string, step: number): Promise<boolean> {
    const res = await ex
      .updateTable('users')
      .set({ twoFaLastStep: step })
      .where('id', '=', userId)
      .where((eb) => eb.or([eb('twoFaLastStep', 'is', null), eb('twoFaLastStep', '<', step)]))
      .executeTakeFirst()
    return Number(res.numUpdatedRows) === 1
  },

  async setPassword(ex: Executor, userId: string, passwordHash: string, now: Date): Promise<void> {
    await updateUserRow(ex, userId, { passwordHash }, now)
  },

  async audit(
    ex: Executor,
    row: { userId: string; action: string; ip: string | null; meta?: Record<string, unknown>; at?: Date },
  ): Promise<void> {
    await ex
      .insertInto('auditLog')
      .values({
        id: newId(row.at?.getTime()),
        userId: row.userId,
        action: row.action,
        ip: row.ip,
        meta: JSON.stringify(row.meta ?? {}),
        ...(row.at ? { createdAt: row.at } : {}),
      })
      .execute()
  },

  /**
   * Password checks of one account run one at a time (a transaction-scoped advisory lock): takes
   * the lock and answers the account's audit rows of `action` since `since` as they are once it is
   * granted (`password_check_failures`, migration 0064).
   */
  async lockPasswordChecks(tx: Tx, userId: string, action: string, since: Date): Promise<number> {
    const res = await sql<{ failures: string | number }>`
      select password_check_failures(${userId}, ${action}, ${since}) as failures`.execute(tx)
    return Number(res.rows[0]!.failures)
  },

  /**
   * `lockPasswordChecks` and the live account's password hash and two-factor switch, in one
   * statement (undefined for an account that is gone: nothing is locked then).
   */
  async lockPasswordChecksOf(
    tx: Tx,
    userId: string,
    action: string,
    since: Date,
  ): Promise<{ passwordHash: string | null; twoFaEnabled: boolean; failures: number } | undefined> {
    const res = await sql<{ passwordHash: string | null; twoFaEnabled: boolean; failures: string | number }>`
      select u.password_hash, u.two_fa_enabled, password_check_failures(u.id, ${action}, ${since}) as failures
      from users u
      where u.id = ${userId} and u.deleted_at is null`.execute(tx)
    const row = res.rows[0]
    return row && { ...row, failures: Number(row.failures) }
  },
}
