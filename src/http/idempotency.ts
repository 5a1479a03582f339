// `Idempotency-Key` for money-moving POSTs: the same key with the same body answers the first
// response again without running the operation twice; the same key with another body is 409.
// The password and code of a body are not part of "the same body" (see SECRET_FIELDS).
// A request that failed leaves no record, so it can be retried with the same key. A record left
// "in progress" is taken over after a minute: its process may have died before or after its
// commit, or may still be running. So an operation that moves value must itself be safe to run a
// second time: a withdrawal keys its ledger hold by the Idempotency-Key (`fn` receives it);
// escrow release, cancel and pay are guarded by the escrow's state under its row lock.
import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '../db/index.ts'
import { errors } from './errors.ts'

const STALE_MS = 60_000

export interface IdempotentResult {
  statusCode: number
  body: unknown
}

/**
 * Fields that confirm a request rather than describe it. They stay out of the stored fingerprint:
 * a fast unsalted hash over a password would let a copy of the database be cracked offline.
 */
const SECRET_FIELDS = new Set(['password', 'code'])

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((k) => !SECRET_FIELDS.has(k))
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** The key of the request, validated; undefined when the client sent none. */
export function idempotencyKeyOf(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key']
  if (raw === undefined) return undefined
  if (typeof raw !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(raw)) {
    throw errors.field(
      '/headers/idempotency-key',
      'Idempotency-Key must be 1 to 200 visible ASCII characters',
    )
  }
  return raw
}

/**
 * Runs `fn` once per (user, key). `fn` returns the status code and body to send. Password checks
 * inside `fn` run again on a replay only when the first attempt failed (nothing was recorded).
 */
export async function idempotent(
  db: Db,
  req: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  fn: (key: string | undefined) => Promise<IdempotentResult>,
): Promise<unknown> {
  const key = idempotencyKeyOf(req)
  if (!key) {
    const r = await fn(undefined)
    return reply.code(r.statusCode).send(r.body)
  }
  const route = `${req.method} ${req.routeOptions.url ?? req.url}`
  const requestHash = createHash('sha256')
    .update(`${route}\n${canonical(req.body ?? null)}`)
    .digest('hex')

  const claimed = await db
    .insertInto('idempotencyKeys')
    .values({ userId, key, route, requestHash })
    .onConflict((oc) => oc.columns(['userId', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst()
  if (!claimed) {
    const existing = await db
      .selectFrom('idempotencyKeys')
      .selectAll()
      .where('userId', '=', userId)
      .where('key', '=', key)
      .executeTakeFirst()
    if (!existing) throw errors.conflict('This Idempotency-Key was just released; retry')
    if (existing.requestHash !== requestHash) {
      throw errors.conflict('This Idempotency-Key was used with a different request')
    }
    if (existing.statusCode !== null) {
      reply.header('idempotent-replayed', 'true')
      return reply.code(existing.statusCode).send(existing.response)
    }
    // In progress: only a stale claim (its process died) may be taken over.
    const taken = await db
      .updateTable('idempotencyKeys')
      .set({ createdAt: new Date() })
      .where('userId', '=', userId)
      .where('key', '=', key)
      .where('statusCode', 'is', null)
      .where('createdAt', '<', sql<Date>`now() - ${`${STALE_MS} milliseconds`}::interval`)
      .executeTakeFirst()
    if (Number(taken.numUpdatedRows) !== 1)
      throw errors.conflict('A request with this Idempotency-Key is in progress')
  }
  try {
    const r = await fn(key)
    await db
      .updateTable('idempotencyKeys')
      .set({ statusCode: r.statusCode, response: JSON.stringify(r.body) })
      .where('userId', '=', userId)
      .where('key', '=', key)
      .execute()
    return reply.code(r.statusCode).send(r.body)
  } catch (err) {
    await db.deleteFrom('idempotencyKeys').where('userId', '=', userId).where('key', '=', key).execute()
    throw err
  }
}
