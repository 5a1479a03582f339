// Rate limits on the sensitive routes: per client IP and per email address, counted in process
// or in Redis (REDIS_URL) so that several API processes share them.
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import type { RateLimitConfig } from '../config.ts'
import { errors } from './errors.ts'

export async function registerRateLimit(app: FastifyInstance, redis: Redis | undefined) {
  await app.register(rateLimit, { global: false, ...(redis ? { redis, nameSpace: 'wp-rl-' } : {}) })
}

/**
 * A preHandler for one route group: `group` separates counters of different routes; `emailOf`
 * picks the email from the body when the route has one. On a signed-in route without an email the
 * account takes the email's place (same limit), so that a stolen token cannot get around the
 * per-IP limit by spreading its requests over many addresses.
 */
export function authLimiter(
  app: FastifyInstance,
  cfg: RateLimitConfig,
  group: string,
  emailOf?: (req: FastifyRequest) => string | undefined,
) {
  const subjectOf = (req: FastifyRequest): string | undefined => {
    const email = emailOf?.(req)?.trim().toLowerCase()
    if (email) return email
    return req.auth ? `account:${req.auth.userId}` : undefined
  }
  const perIp = app.createRateLimit({
    max: cfg.authPerIp,
    timeWindow: cfg.windowMs,
    keyGenerator: (req) => `${group}:ip:${req.ip}`,
  })
  const perEmail = app.createRateLimit({
    max: cfg.authPerEmail,
    timeWindow: cfg.windowMs,
    keyGenerator: (req) => `${group}:email:${subjectOf(req) ?? ''}`,
  })
  return async (req: FastifyRequest) => {
    const ip = await perIp(req)
    if (!ip.isAllowed && ip.isExceeded) throw errors.rateLimited(ip.ttlInSeconds)
    if (subjectOf(req)) {
      const em = await perEmail(req)
      if (!em.isAllowed && em.isExceeded) throw errors.rateLimited(em.ttlInSeconds)
    }
  }
}
