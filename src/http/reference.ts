// The API reference at /docs: Scalar (@scalar/fastify-api-reference) rendering /openapi.json, with
// a sidebar of the tags grouped as the docs/ pages are, a search box (Ctrl/⌘ K), code samples for
// each operation and a request client ("Test Request") that calls this service with a token.
// Everything is served from here (the page, its script, no web fonts, no proxy, no telemetry), so
// it works on a machine without internet, under a Content-Security-Policy that names this origin
// only; the page's one inline script (its configuration) is allowed by its hash. Scalar's package
// (its renderer's script alone is an 8 MB string) is loaded on the first request for the page, into
// a Fastify instance of its own that the routes here forward to, so that a service nobody reads the
// reference of does not keep it in memory (about 20 MB).
import { createHash } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'

/** The docs/ pages and the tags each one covers, in the sidebar's order. */
export const TAG_GROUPS: readonly { name: string; tags: readonly string[] }[] = [
  {
    name: 'Accounts (docs/account.md, docs/web3.md)',
    tags: ['auth', 'account', 'connection filters', 'referrals'],
  },
  {
    name: 'Wallet and chain (docs/wallet.md, docs/chain.md)',
    tags: ['payment', 'wallet', 'transactions', 'reserves'],
  },
  { name: 'Withdrawals (docs/withdrawals.md)', tags: ['withdrawals'] },
  { name: 'Identity verification (docs/verification.md)', tags: ['identity verification'] },
  { name: 'Escrow (docs/escrow.md)', tags: ['escrow'] },
  { name: 'Collections (docs/collections.md)', tags: ['collections', 'collection stores', 'bookmarks'] },
  {
    name: 'Collaboration (docs/collaboration.md)',
    tags: ['invites', 'applications', 'disputes', 'reviews', 'chat'],
  },
  { name: 'Notifications (docs/notifications.md)', tags: ['notifications', 'feeds', 'live'] },
  { name: 'Webhooks (docs/webhooks.md)', tags: ['webhooks'] },
  { name: 'Files (docs/files.md)', tags: ['files'] },
  { name: 'Administration (docs/admin.md)', tags: ['admin'] },
  { name: 'Operations (docs/operations.md)', tags: ['operations'] },
]

/** `x-tagGroups` for the document: the groups of the tags it uses, and any other tag at the end. */
export function tagGroups(usedTags: readonly string[]) {
  const used = new Set(usedTags)
  const groups = TAG_GROUPS.map((g) => ({ name: g.name, tags: g.tags.filter((t) => used.has(t)) })).filter(
    (g) => g.tags.length > 0,
  )
  const grouped = new Set(groups.flatMap((g) => g.tags))
  const rest = usedTags.filter((t) => !grouped.has(t))
  return rest.length ? [...groups, { name: 'Other', tags: rest }] : groups
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi

/** The page's policy: this origin only; inline scripts by hash; styles the renderer injects. */
export function referenceCsp(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  )
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    // The renderer (Vue) sets style attributes and injects <style> elements as it renders.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    // "Test Request" calls this service; the document is read from it too.
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** Scalar's routes (`/docs`, `/docs/`, `/docs/js/scalar.js`), served by an instance made once. */
async function scalarRoutes(): Promise<FastifyInstance> {
  const { default: scalar } = await import('@scalar/fastify-api-reference')
  const inner = Fastify({ logger: false })
  await inner.register(scalar, {
    routePrefix: '/docs',
    configuration: {
      url: '/openapi.json',
      pageTitle: 'WorkPay API reference',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
      defaultOpenAllTags: false,
      authentication: { preferredSecurityScheme: 'bearer' },
    } as Record<string, unknown>,
  })
  await inner.ready()
  return inner
}

/** the headers of Scalar's answers passed on (the rest are this service's own) */
const PASSED = ['content-type', 'location'] as const

interface Answer {
  statusCode: number
  headers: Partial<Record<(typeof PASSED)[number], string>>
  body: string
}

export async function registerReference(app: FastifyInstance) {
  let inner: Promise<FastifyInstance> | undefined
  // Scalar's answers depend on the path alone (the page, its script, a redirect), so each is made
  // once: its script is 8 MB, which a copy per request would leave as garbage until V8's next full
  // collection. Only its three routes answer anything but a 404, so this holds three entries.
  const answers = new Map<string, Answer>()
  const answer = async (path: string): Promise<Answer> => {
    const known = answers.get(path)
    if (known) return known
    inner ??= scalarRoutes().catch((err: unknown) => {
      inner = undefined
      throw err
    })
    const res = await (await inner).inject({ method: 'GET', url: path, headers: { host: 'localhost' } })
    const headers: Answer['headers'] = {}
    for (const name of PASSED) {
      const value = res.headers[name]
      if (typeof value === 'string') headers[name] = value
    }
    const made = { statusCode: res.statusCode, headers, body: res.payload }
    if (res.statusCode !== 404) answers.set(path, made)
    return made
  }
  const forward = async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0]!
    const res = await answer(path)
    if (res.statusCode === 404) return reply.callNotFound()
    return reply.code(res.statusCode).headers(res.headers).send(res.body)
  }
  await app.register(async (scope) => {
    // After the global security headers: the page's own policy replaces the API's.
    scope.addHook('onSend', (_req, reply, payload, done) => {
      const type = String(reply.getHeader('content-type') ?? '')
      if (type.startsWith('text/html') && typeof payload === 'string')
        reply.header('content-security-policy', referenceCsp(payload))
      else if (type.includes('javascript')) reply.header('cache-control', 'public, max-age=3600')
      done(null, payload)
    })
    for (const url of ['/docs', '/docs/*'])
      scope.route({ method: 'GET', url, schema: { hide: true }, logLevel: 'warn', handler: forward })
  })
}
