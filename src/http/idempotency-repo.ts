// SQL of the Idempotency-Key claims (idempotency_keys). Lease times use the database's clock, so
// every API process agrees on them.
import { sql } from 'kysely'
import type { Db } from '../db/index.ts'

const olderThan = (ms: number) => sql<Date>`now() - ${`${ms} milliseconds`}::interval`

export const idempotencyRepo = {
  async claim(
    db: Db,
    row: { userId: string; key: string; route: string; requestHash: string; claim: string },
  ) {
    const inserted = await db
      .insertInto('idempotencyKeys')
      .values(row)
      .onConflict((oc) => oc.columns(['userId', 'key']).doNothing())
      .returning('key')
      .executeTakeFirst()
    return inserted !== undefined
  },

  async find(db: Db, userId: string, key: string) {
    return db
      .selectFrom('idempotencyKeys')
      .select(['requestHash', 'statusCode', 'response'])
      .where('userId', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst()
  },

  /** Takes over an unanswered claim whose lease lapsed (its process died); true when taken. */
  async takeOver(db: Db, userId: string, key: string, claim: string, leaseMs: number) {
    const r = await db
      .updateTable('idempotencyKeys')
      .set({ claim, createdAt: sql`now()` })
      .where('userId', '=', userId)
      .where('key', '=', key)
      .where('statusCode', 'is', null)
      .where('createdAt', '<', olderThan(leaseMs))
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  },

  /** Renews the lease; false when the claim is no longer ours. */
  async renew(db: Db, userId: string, key: string, claim: string) {
    const r = await db
      .updateTable('idempotencyKeys')
      .set({ createdAt: sql`now()` })
      .where('userId', '=', userId)
      .where('key', '=', key)
      .where('claim', '=', claim)
      .where('statusCode', 'is', null)
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  },

  async answer(db: Db, userId: string, key: string, claim: string, statusCode: number, response: unknown) {
    await db
      .updateTable('idempotencyKeys')
      .set({ statusCode, response: JSON.stringify(response) })
      .where('userId', '=', userId)
      .where('key', '=', key)
      .where('claim', '=', claim)
      .execute()
  },

  async release(db: Db, userId: string, key: string, claim: string) {
    await db
      .deleteFrom('idempotencyKeys')
      .where('userId', '=', userId)
      .where('key', '=', key)
      .where('claim', '=', claim)
      .where('statusCode', 'is', null)
      .execute()
  },
}
