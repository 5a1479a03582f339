// Serves a process's metrics: the HTTP latency hook and `GET /metrics` (open, or behind a bearer
// token when METRICS_TOKEN is set). Probes are logged below info so that a scraper polling every
// few seconds does not fill the log.
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Metrics } from './index.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

/** A handler for `GET /metrics`; with a token, other callers get 401 in the error envelope. */
export function metricsHandler(metrics: Metrics, token: string | undefined) {
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`)
  return async (req: FastifyRequest, reply: FastifyReply) => {
    if (expected) {
      const given = req.headers.authorization
      if (typeof given !== 'string' || !timingSafeEqual(digest(given), expected))
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .send({
            status: 'error',
            message: 'A metrics token is required',
            data: { code: 'UNAUTHENTICATED' },
          })
    }
    const text = await metrics.render()
    return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text)
  }
}

/** Times every request of `app` by its route pattern, and adds `GET /metrics`. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, opts: { token: string | undefined }) {
  app.addHook('onResponse', (req, reply, done) => {
    metrics.observeHttp(
      req.method,
      req.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    )
    done()
  })
  app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, metricsHandler(metrics, opts.token))
}
