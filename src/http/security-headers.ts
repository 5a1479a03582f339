// The security headers of every answer, set by @fastify/helmet with the values that suit a JSON
// API: `X-Content-Type-Options: nosniff`, a Content-Security-Policy that allows nothing (an answer
// opened in a browser runs no script and loads nothing), no framing, HSTS, no referrer, and the
// cross-origin isolation headers. Pages served as pages (the reference at /docs, the operator
// console at /admin, downloaded files) set their own Content-Security-Policy over this one.
// Cross-Origin-Resource-Policy is `cross-origin`: public files and images are embedded by web apps
// on other origins (CORS_ORIGINS), and no answer depends on cookies.
import fastifyHelmet from '@fastify/helmet'
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

export async function registerSecurityHeaders(app: FastifyInstance) {
  await app.register(fastifyHelmet, { global: true, ...OPTIONS })
}

/**
 * The same headers as one object, for the few answers written before any hook runs (a URL the
 * router cannot parse): what helmet sets on a response, read once.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = (() => {
  const headers: Record<string, string> = {}
  const res = {
    setHeader: (name: string, value: string) => {
      headers[name.toLowerCase()] = String(value)
    },
    removeHeader: () => {},
  }
  helmet(OPTIONS)({} as never, res as never, () => {})
  return Object.freeze(headers)
})()
