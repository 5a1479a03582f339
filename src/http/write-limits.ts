// Limits on the writes an abuser would repeat (chat messages, invites, applications, reviews,
// disputes, bookmarks, webhook endpoints, uploads, collections, withdrawals): each kind counted per
// account and per client IP over its window, in process or in Redis (REDIS_URL) so that every API
// process shares the counters, answered 429 RATE_LIMITED with Retry-After. The defaults are far
// above what a person does by hand; RATE_LIMIT_WRITES changes any of them, RATE_LIMIT_WRITES_SCALE
// multiplies them all (a load test, an integration that imports in bulk).
//
// The limits are attached by operationId when each route is registered (one `onRoute` hook), so a
// module declares nothing and a new operation of a limited kind is one line here.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from './errors.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

export interface WriteLimit {
  /** requests per window per account */
  perUser: number
  /** requests per window per client IP (several people may share one address) */
  perIp: number
  windowMs: number
  /** the operations counted together under this limit */
  operations: readonly string[]
  what: string
  /** a public operation (no account): only the per-IP limit applies */
  public?: true
}

/** The defaults, one documented table (docs/http.md#limits-on-repeated-writes). */
export const WRITE_LIMITS = {
  chat: {
    perUser: 60,
    perIp: 300,
    windowMs: MINUTE,
    operations: ['sendMessage'],
    what: 'chat messages',
  },
  invites: {
    perUser: 50,
    perIp: 200,
    windowMs: HOUR,
    operations: ['sendInvite'],
    what: 'invitations of talents to a job',
  },
  applications: {
    perUser: 50,
    perIp: 200,
    windowMs: HOUR,
    operations: ['applyToJob'],
    what: 'applications to jobs',
  },
  reviews: { perUser: 30, perIp: 100, windowMs: HOUR, operations: ['addReview'], what: 'reviews' },
  disputes: {
    perUser: 20,
    perIp: 60,
    windowMs: HOUR,
    operations: ['raiseDispute', 'proposeDisputeSplit'],
    what: 'disputes raised and split proposals',
  },
  bookmarks: {
    perUser: 300,
    perIp: 1000,
    windowMs: HOUR,
    operations: ['createBookmark'],
    what: 'bookmarks',
  },
  webhooks: {
    perUser: 30,
    perIp: 100,
    windowMs: HOUR,
    operations: ['createWebhook', 'rotateWebhookSecret'],
    what: 'webhook endpoints registered and secrets rotated',
  },
  webhooktests: {
    perUser: 60,
    perIp: 200,
    windowMs: HOUR,
    operations: ['sendTestWebhook'],
    what: 'webhook test deliveries',
  },
  uploads: {
    perUser: 100,
    perIp: 300,
    windowMs: HOUR,
    operations: ['uploadFile', 'uploadPrivateFile'],
    what: 'file uploads',
  },
  collections: {
    perUser: 100,
    perIp: 300,
    windowMs: HOUR,
    operations: ['createCollection', 'createManyCollections'],
    what: 'collections created',
  },
  withdrawals: {
    perUser: 30,
    perIp: 100,
    windowMs: HOUR,
    operations: ['createWithdrawal'],
    what: 'withdrawal requests',
  },
  deposits: {
    perUser: 20,
    perIp: 20,
    windowMs: HOUR,
    operations: ['createDirectDeposit'],
    what: 'public payment orders (direct deposits)',
    public: true,
  },
  depositchecks: {
    perUser: 60,
    perIp: 60,
    windowMs: MINUTE,
    operations: ['validateDirectDeposit'],
    what: 'public payment order checks (each asks for a chain scan)',
    public: true,
  },
} as const satisfies Record<string, WriteLimit>

export type WriteKind = keyof typeof WRITE_LIMITS
export type WriteLimits = Record<WriteKind, { perUser: number; perIp: number; windowMs: number }>

/** Open live sockets one account may hold at once (the oldest is closed for a new one). */
export const LIVE_SOCKETS_PER_USER = 20

/**
 * The limits in force: the defaults times `scale`, then `overrides` (`kind=perUser/perIp,...`,
 * e.g. `chat=120/600,uploads=500/1000`; a bare `kind=N` sets the per-account limit and keeps the
 * per-IP one at least as high). Problems go to `problems`.
 */
export function writeLimits(overrides: string | undefined, scale: number, problems: string[]): WriteLimits {
  const out = {} as WriteLimits
  for (const [kind, l] of Object.entries(WRITE_LIMITS) as [WriteKind, WriteLimit][])
    out[kind] = { perUser: l.perUser * scale, perIp: l.perIp * scale, windowMs: l.windowMs }
  for (const part of (overrides ?? '').split(',').map((p) => p.trim())) {
    if (!part) continue
    const m = /^([a-z]+)=(\d{1,9})(?:\/(\d{1,9}))?$/.exec(part)
    const kind = m?.[1] as WriteKind | undefined
    if (!m || !kind || !(kind in WRITE_LIMITS) || Number(m[2]) < 1 || (m[3] && Number(m[3]) < 1)) {
      problems.push(
        `RATE_LIMIT_WRITES: "${part}" is not kind=perUser[/perIp] with a kind among ${Object.keys(WRITE_LIMITS).join(', ')}`,
      )
      continue
    }
    const perUser = Number(m[2])
    out[kind] = {
      ...out[kind],
      perUser,
      perIp: m[3] ? Number(m[3]) : Math.max(perUser, out[kind].perIp),
    }
  }
  return out
}

/** The kind an operation is counted under, if any. */
export function writeKindOf(operationId: string | undefined): WriteKind | undefined {
  if (!operationId) return undefined
  for (const [kind, l] of Object.entries(WRITE_LIMITS) as [WriteKind, WriteLimit][])
    if (l.operations.includes(operationId)) return kind
  return undefined
}

/**
 * Attaches each limited operation's counter as it is registered (call before the routes): per
 * account (the route's authentication runs first) and per client IP, before the body is validated,
 * 429 RATE_LIMITED with Retry-After once either is spent.
 */
export function registerWriteLimits(app: FastifyInstance, limits: WriteLimits) {
  const checks = new Map<WriteKind, (req: FastifyRequest) => Promise<void>>()
  const checkOf = (kind: WriteKind) => {
    let check = checks.get(kind)
    if (check) return check
    const l = limits[kind]
    const perUser = app.createRateLimit({
      max: l.perUser,
      timeWindow: l.windowMs,
      keyGenerator: (req) => `w:${kind}:u:${req.auth?.userId ?? ''}`,
    })
    const perIp = app.createRateLimit({
      max: l.perIp,
      timeWindow: l.windowMs,
      keyGenerator: (req) => `w:${kind}:ip:${req.ip}`,
    })
    check = async (req: FastifyRequest) => {
      if (req.auth) {
        const u = await perUser(req)
        if (!u.isAllowed && u.isExceeded) throw errors.rateLimited(u.ttlInSeconds)
      }
      const ip = await perIp(req)
      if (!ip.isAllowed && ip.isExceeded) throw errors.rateLimited(ip.ttlInSeconds)
    }
    checks.set(kind, check)
    return check
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    const kind = writeKindOf((route.schema as { operationId?: string } | undefined)?.operationId)
    if (!kind || route.method === 'HEAD') return
    const check = checkOf(kind)
    // Before validation: a malformed request an abuser repeats counts as well.
    const own = route.preValidation
    route.preValidation = [
      check,
      ...(own ? (Array.isArray(own) ? own : [own]) : []),
    ] as RouteOptions['preValidation']
  })
}
