// Parked jobs: jobs a restore took out of the queue for review (`status = 'parked'`, which no
// worker claims) because running them would reach outside the platform again (mail, webhooks,
// chain transfers) from a database that may be behind what the world already saw. An operator
// releases each (queued again, due now) or drops it (deleted; what it was stays in the audit row).
import { sql } from 'kysely'
import type { Db, Executor } from '../../db/index.ts'

export const PARKED = 'parked'

export interface ParkedJob {
  id: string
  kind: string
  attempts: number
  runAt: Date
  createdAt: Date
  /** what the job is about, without its payload (mail carries codes): ids and addresses only */
  about: Record<string, unknown>
}

/** The fields of a payload safe to show an operator, by job kind (never a mail's body). */
function aboutOf(kind: string, payload: Record<string, unknown>): Record<string, unknown> {
  const pick = (...keys: string[]) =>
    Object.fromEntries(keys.filter((k) => payload[k] !== undefined).map((k) => [k, payload[k]]))
  if (kind === 'mail.send') return pick('to', 'subject', 'kind')
  return pick('id', 'deliveryId', 'webhookId', 'key', 'userId', 'transferId')
}

export const parking = {
  /** Parks every queued or running job of `kinds`; answers how many of each kind. */
  async park(db: Db, kinds: readonly string[]): Promise<Record<string, number>> {
    if (kinds.length === 0) return {}
    const rows = await db
      .updateTable('jobs')
      .set({ status: PARKED, lockedUntil: null, updatedAt: sql`now()` })
      .where('kind', 'in', [...kinds])
      .where('status', 'in', ['queued', 'running'])
      .returning('kind')
      .execute()
    const out: Record<string, number> = {}
    for (const r of rows) out[r.kind] = (out[r.kind] ?? 0) + 1
    return out
  },

  async list(ex: Executor, q: { kind?: string | undefined; page: number; limit: number }) {
    let base = ex.selectFrom('jobs').where('status', '=', PARKED)
    if (q.kind) base = base.where('kind', '=', q.kind)
    const [rows, count] = await Promise.all([
      base
        .select(['id', 'kind', 'payload', 'attempts', 'runAt', 'createdAt'])
        .orderBy('createdAt')
        .orderBy('id')
        .limit(q.limit)
        .offset((q.page - 1) * q.limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    ])
    return {
      total: Number(count.n),
      rows: rows.map(({ payload, ...r }): ParkedJob => ({ ...r, about: aboutOf(r.kind, payload ?? {}) })),
    }
  },

  /** The parked job, locked in `ex` (a transaction), or undefined when it is not parked. */
  async lock(ex: Executor, id: string): Promise<ParkedJob | undefined> {
    const row = await ex
      .selectFrom('jobs')
      .select(['id', 'kind', 'payload', 'attempts', 'runAt', 'createdAt'])
      .where('id', '=', id)
      .where('status', '=', PARKED)
      .forUpdate()
      .executeTakeFirst()
    if (!row) return undefined
    const { payload, ...r } = row
    return { ...r, about: aboutOf(r.kind, payload ?? {}) }
  },

  /** Queued again and due now; the attempt a running job had used is given back. */
  async release(ex: Executor, id: string, now: Date): Promise<boolean> {
    const res = await ex
      .updateTable('jobs')
      .set({ status: 'queued', runAt: now, lockedUntil: null, updatedAt: now })
      .where('id', '=', id)
      .where('status', '=', PARKED)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  async drop(ex: Executor, id: string): Promise<boolean> {
    const res = await ex
      .deleteFrom('jobs')
      .where('id', '=', id)
      .where('status', '=', PARKED)
      .executeTakeFirst()
    return Number(res.numDeletedRows) > 0
  },

  async count(ex: Executor): Promise<number> {
    const row = await ex
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('status', '=', PARKED)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },

  async exists(ex: Executor, id: string): Promise<boolean> {
    return (await ex.selectFrom('jobs').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  },
}
