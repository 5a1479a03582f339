// SQL of operators' passkeys (`admin_passkeys`) and their single-use challenges
// (`admin_passkey_challenges`).
import type { Executor, Tx } from '../../db/index.ts'

export const PASSKEY_COLUMNS = [
  'id',
  'userId',
  'name',
  'publicKey',
  'counter',
  'transports',
  'deviceType',
  'backedUp',
  'createdAt',
  'lastUsedAt',
] as const

export const passkeysRepo = {
  async count(ex: Executor, userId: string): Promise<number> {
    const row = await ex
      .selectFrom('adminPasskeys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },

  listOf(ex: Executor, userId: string) {
    return ex
      .selectFrom('adminPasskeys')
      .select(PASSKEY_COLUMNS)
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('adminPasskeys').select(PASSKEY_COLUMNS).where('id', '=', id).executeTakeFirst()
  },

  async insert(
    tx: Tx,
    row: {
      id: string
      userId: string
      name: string
      publicKey: string
      counter: number
      transports: string[]
      deviceType: string
      backedUp: boolean
      createdAt: Date
    },
  ) {
    await tx
      .insertInto('adminPasskeys')
      .values({ ...row, transports: JSON.stringify(row.transports) })
      .execute()
  },

  /** Moves the counter on from the value read (a concurrent use of the same answer finds 0 rows). */
  async used(tx: Tx, id: string, from: number, to: number, at: Date): Promise<boolean> {
    const r = await tx
      .updateTable('adminPasskeys')
      .set({ counter: to, lastUsedAt: at })
      .where('id', '=', id)
      .where('counter', '=', from)
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  },

  async remove(tx: Tx, id: string, userId: string): Promise<boolean> {
    const r = await tx
      .deleteFrom('adminPasskeys')
      .where('id', '=', id)
      .where('userId', '=', userId)
      .executeTakeFirst()
    return Number(r.numDeletedRows) === 1
  },

  /** Removes every passkey (and open challenge) of an account; answers how many passkeys went. */
  async removeAllOf(tx: Tx, userId: string): Promise<number> {
    await tx.deleteFrom('adminPasskeyChallenges').where('userId', '=', userId).execute()
    const r = await tx.deleteFrom('adminPasskeys').where('userId', '=', userId).executeTakeFirst()
    return Number(r.numDeletedRows)
  },

  /** A new challenge; the user's expired ones are dropped on the way. */
  async addChallenge(
    ex: Executor,
    row: {
      challenge: string
      purpose: 'register' | 'authenticate'
      userId: string
      sessionId: string
      createdAt: Date
      expiresAt: Date
    },
  ) {
    await ex
      .deleteFrom('adminPasskeyChallenges')
      .where('userId', '=', row.userId)
      .where('expiresAt', '<=', row.createdAt)
      .execute()
    await ex.insertInto('adminPasskeyChallenges').values(row).execute()
  },

  /**
   * Uses a challenge up: only one of this session and purpose, unused and unexpired, and only once
   * (a concurrent second use finds nothing). Answers whether it was taken.
   */
  async takeChallenge(
    ex: Executor,
    c: {
      challenge: string
      purpose: 'register' | 'authenticate'
      userId: string
      sessionId: string
      now: Date
    },
  ): Promise<boolean> {
    const r = await ex
      .updateTable('adminPasskeyChallenges')
      .set({ usedAt: c.now })
      .where('challenge', '=', c.challenge)
      .where('purpose', '=', c.purpose)
      .where('userId', '=', c.userId)
      .where('sessionId', '=', c.sessionId)
      .where('usedAt', 'is', null)
      .where('expiresAt', '>', c.now)
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  },
}
