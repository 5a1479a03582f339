// `Idempotency-Key` for money-moving POSTs: the same key with the same body answers the first
// response again without running the operation twice; the same key with another body is 409.
// The password and code of a body are not part of "the same body" (see SECRET_FIELDS).
// A request that failed leaves no record, so it can be retried with the same key. A running
// request holds its claim as a lease, renewed every few seconds; a second request with the key
// meanwhile gets 409. A claim whose lease lapsed (its process died, before or after its commit)
// is taken over; the claim token fences the first runner out, should it still be alive. Because
// a process can die after its commit and before the answer is stored, an operation that moves
// value must itself be safe to run a second time: a withdrawal keys its ledger hold by the
// Idempotency-Key (`fn` receives it); escrow release, cancel and pay are guarded by the escrow's
// state under its row lock.
import { createHash, randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../db/index.ts'
import { errors } from './errors.ts'
import { idempotencyRepo as repo } from './idempotency-repo.ts'

export interface LeaseTiming {
  /** a claim not renewed for this long belongs to a dead process and may be taken over */
  leaseMs: number
  /** how often a running request renews its claim */
  renewMs: number
}

export const DEFAULT_LEASE: LeaseTiming = { leaseMs: 15_000, renewMs: 5_000 }

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
  timing: LeaseTiming = DEFAULT_LEASE,
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

  const claim = randomUUID()
  if (!(await repo.claim(db, { userId, key, route, requestHash, claim }))) {
    const existing = await repo.find(db, userId, key)
    if (!existing)
      throw errors.named('IDEMPOTENCY_KEY_IN_PROGRESS', 'This Idempotency-Key was just released; retry')
    if (existing.requestHash !== requestHash) {
      throw errors.named('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request')
    }
    if (existing.statusCode !== null) {
      reply.header('idempotent-replayed', 'true')
      return reply.code(existing.statusCode).send(existing.response)
    }
    if (!(await repo.takeOver(db, userId, key, claim, timing.leaseMs)))
      throw errors.named('IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is in progress')
  }
  let lost = false
  const renewal = setInterval(() => {
    repo.renew(db, userId, key, claim).then(
      (ok) => {
        if (!ok && !lost) {
          lost = true
          req.log.warn({ idempotencyKeyRoute: route }, 'idempotency claim lost while the request ran')
        }
      },
      (err: unknown) => req.log.warn({ err }, 'idempotency claim renewal failed'),
    )
  }, timing.renewMs)
  renewal.unref()
  try {
    const r = await fn(key)
    clearInterval(renewal)
    await repo.answer(db, userId, key, claim, r.statusCode, r.body)
    return reply.code(r.statusCode).send(r.body)
  } catch (err) {
    clearInterval(renewal)
    await repo.release(db, userId, key, claim)
    throw err
  }
}
