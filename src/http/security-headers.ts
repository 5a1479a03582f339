// The security headers of every answer, as helmet writes them with the values that suit a JSON
// API: `X-Content-Type-Options: nosniff`, a Content-Security-Policy that allows nothing (an answer
// opened in a browser runs no script and loads nothing), no framing, HSTS, no referrer, and the
// cross-origin isolation headers. Pages served as pages (the reference at /docs, the operator
// console at /admin, downloaded files) set their own Content-Security-Policy over this one.
// Cross-Origin-Resource-Policy is `cross-origin`: public files and images are embedded by web apps
// on other origins (CORS_ORIGINS), and no answer depends on cookies.
// helmet is run once, at start-up, to learn the headers; each request then only sets them (running
// helmet per request, as its Fastify plugin does, rebuilds its middleware from the options every
// time).
import type { FastifyInstance } from 'fastify'
import helmet from 'helmet'

const API_DIRECTIVES = {
  defaultSrc: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
}

/** The policy of every answer that is not a page (as helmet writes it). */
export const API_CSP = "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'"

const OPTIONS = {
  contentSecurityPolicy: { useDefaults: false, directives: API_DIRECTIVES },
  crossOriginResourcePolicy: { policy: 'cross-origin' as const },
  referrerPolicy: { policy: 'no-referrer' as const },
}

/** The headers helmet sets, by name as it writes them, in its order. */
const HEADERS: readonly (readonly [string, string])[] = (() => {
  const headers: [string, string][] = []
  const res = {
    setHeader: (name: string, value: string) => {
      headers.push([name, String(value)])
    },
    removeHeader: () => {},
  }
  helmet(OPTIONS)({} as never, res as never, () => {})
  return headers
})()

/** Sets the headers on every answer, before anything else may set its own (a page's policy). */
export function registerSecurityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (_req, reply, done) => {
    for (const [name, value] of HEADERS) reply.raw.setHeader(name, value)
    done()
  })
}

/**
 * The same headers as one object, for the few answers written before any hook runs (a URL the
 * router cannot parse).
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(HEADERS.map(([name, value]) => [name.toLowerCase(), value])),
)
