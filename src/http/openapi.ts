// The OpenAPI document (`/openapi.json`, generated from every route's TypeBox schemas) and the
// reference page rendered from it at `/docs` (src/http/reference.ts).
//
// Routes declare their own contract (schemas, security, error codes); what holds for every route
// is added here to the document only: the `x-request-id` response header, `Retry-After` on 429 and
// 503, `idempotent-replayed` on operations that take an Idempotency-Key, and 413/415 on operations
// with a JSON body. The operational routes (/health, /ready, /metrics) are described here too.
import swagger from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import type { Config } from '../config.ts'
import { registerReference, tagGroups } from './reference.ts'
import { ErrorEnvelope, envelope, errorResponses, noAuth } from './schemas.ts'
import { WRITE_LIMITS, writeKindOf } from './write-limits.ts'

const DESCRIPTION = `Accounts, escrow, wallets, withdrawals, transactions, collections and files of the WorkPay platform.

- **Envelope.** Every JSON answer is \`{ "status": "success" | "error", "message", "data" }\`. A failure carries a machine-readable \`data.code\` (and \`data.errors\` with one \`{ path, message }\` per field for validation failures); each operation lists the codes it can answer.
- **Authentication.** Operations marked with the \`bearer\` scheme need \`Authorization: Bearer <token>\`, the permanent token from /v1/auth/account/verify, /v1/auth/login or /v1/auth/login/2fa. The others are public.
- **Money.** Amounts are kept in integer base units of their coin; the API shows wallet \`amount\` as a string with six decimals (rounded down) and other coin amounts as JSON numbers in whole coins. USD values are JSON numbers rounded to cents. Quotes also give exact base-unit strings.
- **Retries.** Money-moving POSTs take an \`Idempotency-Key\` header; every response carries \`x-request-id\` (send your own to correlate with the service's log).`

const TAGS = [
  {
    name: 'auth',
    description: 'Sign-up, login, two-factor login, password reset and wallet (web3) sign-in.',
  },
  {
    name: 'account',
    description: 'The caller’s profile, people search, password, two-factor settings, logout.',
  },
  { name: 'payment', description: 'Supported coins and the chain configuration, with and without a token.' },
  { name: 'wallet', description: 'The custodial wallet per coin: balances in coin and USD, the key export.' },
  { name: 'transactions', description: 'Deposits, withdrawals, payouts and fees of the caller; USD rates.' },
  { name: 'withdrawals', description: 'Sending coins from the wallet to an outside address.' },
  {
    name: 'identity verification',
    description:
      'Identity verification sessions and their images (the SDK’s userVerification), reviewed by operators or Veriff; Veriff’s signed decision webhook.',
  },
  {
    name: 'escrow',
    description: 'Quotes, payment, validation and release of escrows that fund collections.',
  },
  { name: 'collections', description: 'Jobs and funding requests, with child collections.' },
  {
    name: 'collection stores',
    description:
      'Collection schemas (typed fields admins define) and the records users keep under them, checked against the fields.',
  },
  {
    name: 'connection filters',
    description:
      'A user’s rules on who may invite them, apply to their jobs or open a conversation with them.',
  },
  {
    name: 'bookmarks',
    description: 'The caller’s bookmarks of collections, users, feed entries and invites.',
  },
  {
    name: 'referrals',
    description:
      'Referral codes: validation before sign-up, the referrer’s referred accounts, stats and invitations.',
  },
  { name: 'files', description: 'Uploads (public and private), file records and pre-signed URLs.' },
  { name: 'invites', description: 'Invitations of talents to private jobs.' },
  { name: 'applications', description: 'Talents applying to jobs, and the creator’s answer.' },
  { name: 'disputes', description: 'Disputes over a delivered job and the proposals that settle them.' },
  {
    name: 'feeds',
    description: 'The activity stream: public entries and those concerning the caller; dismissals.',
  },
  {
    name: 'notifications',
    description:
      'What happened to the caller (fed by domain events), read state, and which types are e-mailed.',
  },
  {
    name: 'live',
    description: 'The WebSocket of live pushes (notifications, money, chat) and presence.',
  },
  {
    name: 'chat',
    description: 'Conversations of a collection’s parties and direct ones, messages, read receipts.',
  },
  { name: 'reviews', description: 'Reviews the two parties of a finished job write about each other.' },
  {
    name: 'webhooks',
    description:
      'HTTPS endpoints called with signed JSON when money moves (deposits, withdrawals, escrows), with their delivery logs.',
  },
  {
    name: 'admin',
    description:
      'The operator’s API: admins only, each route but the session’s own behind a fresh second factor (POST /v1/admin/session); every action is audited.',
  },
  {
    name: 'reserves',
    description:
      'Proof of reserves: signed Merkle-sum snapshots of what the platform owes and the on-chain reserves at one block, and each user’s proof of inclusion (docs/reserves.md).',
  },
  { name: 'operations', description: 'Liveness, readiness and metrics for operators and load balancers.' },
]

/** Paths the API contract names with a trailing slash; every other path is documented without one. */
const TRAILING_SLASH_PATHS = new Set(['/v1/upload/', '/v1/withdrawals/'])

/** How the operational routes are documented (their handlers live with the app). */
const OPERATIONAL: Record<string, Record<string, unknown>> = {
  '/health': {
    operationId: 'health',
    summary: 'Liveness',
    description: 'Answers 200 while the process serves HTTP; it checks nothing else (see /ready).',
    tags: ['operations'],
    security: noAuth,
    response: {
      200: envelope(
        Type.Object({
          uptime: Type.Number({ description: 'seconds since the process started', examples: [5321.4] }),
        }),
        'ok',
      ),
      ...errorResponses({}),
    },
  },
  '/ready': {
    operationId: 'ready',
    summary: 'Readiness',
    description:
      'Answers 200 when every part this process needs answers (the database, and where configured the chain, the object store, the mail relay, Redis); 503 UNAVAILABLE naming the failing parts otherwise. Take the process out of the load balancer until it is ready again.',
    tags: ['operations'],
    security: noAuth,
    response: {
      200: envelope(
        Type.Object({
          database: Type.Union([Type.Literal('postgres'), Type.Literal('pglite')], {
            description: 'the database driver in use',
            examples: ['postgres'],
          }),
          checks: Type.Optional(
            Type.Record(Type.String(), Type.Union([Type.Literal('ok'), Type.Literal('failed')]), {
              description: 'the outcome per part',
              examples: [{ database: 'ok', chain: 'ok', storage: 'ok' }],
            }),
          ),
        }),
        'ready',
      ),
      ...errorResponses({
        UNAVAILABLE: {
          when: 'a part the process needs does not answer',
          message: 'Not ready: database unreachable',
          data: { failing: ['database'], checks: { database: 'failed', chain: 'ok', storage: 'ok' } },
        },
      }),
    },
  },
  '/metrics': {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'Metrics of this process in the Prometheus text exposition format, for a scraper. Needs `Authorization: Bearer <METRICS_TOKEN>` (401 UNAUTHENTICATED otherwise) when the operator set METRICS_TOKEN, which production requires; open only outside production without it.',
    tags: ['operations'],
    security: [{}, { metricsToken: [] }],
    response: {
      200: {
        description: 'the metrics',
        content: {
          'text/plain': {
            schema: Type.String({
              examples: [
                '# HELP process_cpu_user_seconds_total Total user CPU time spent in seconds.\n# TYPE process_cpu_user_seconds_total counter\nprocess_cpu_user_seconds_total 1.92\n',
              ],
            }),
          },
        },
      },
      ...errorResponses({
        UNAUTHENTICATED: {
          when: 'METRICS_TOKEN is set and the request does not carry it',
          message: 'A metrics token is required',
        },
      }),
    },
  },
}

type Json = Record<string, any>

/** The same name must never stand for two different schemas in the document. */
function checkSchemaNames(routeSchema: unknown, seen: Map<string, string>, where: string) {
  const visit = (node: unknown) => {
    if (!node || typeof node !== 'object') return
    if (Array.isArray(node)) return node.forEach(visit)
    const s = node as Json
    if (typeof s.$id === 'string') {
      const text = JSON.stringify(s)
      const before = seen.get(s.$id)
      if (before !== undefined && before !== text)
        throw new Error(`OpenAPI: two different schemas are named ${s.$id} (${where})`)
      seen.set(s.$id, text)
    }
    for (const value of Object.values(s)) visit(value)
  }
  visit(routeSchema)
}

/** A copy of a schema without `$id`s (see registerOpenApi). */
function withoutNames(node: unknown): any {
  if (Array.isArray(node)) return node.map(withoutNames)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node as Json)) if (k !== '$id') out[k] = withoutNames(v)
  return out
}

/** What the document says about every route, added once the routes are in. */
function finishDocument(doc: Json) {
  const used = new Set<string>()
  for (const item of Object.values<Json>(doc.paths))
    for (const op of Object.values<Json>(item)) for (const tag of op?.tags ?? []) used.add(tag)
  doc.tags = doc.tags.filter((tag: Json) => used.has(tag.name))
  // The reference's sidebar groups the tags as the docs/ pages are (Scalar and Redoc read it).
  doc['x-tagGroups'] = tagGroups(doc.tags.map((tag: Json) => tag.name))
  // Declared for /metrics, which an app may be built without.
  if (!doc.paths['/metrics']) delete doc.components.securitySchemes.metricsToken
  doc.components.headers = {
    RequestId: {
      description:
        'The request id: the `x-request-id` the client sent (1 to 64 of letters, digits, `_`, `.`, `-`) or a generated UUID. The log lines of the request carry it.',
      schema: { type: 'string', examples: ['0b7e6c1e-8d7f-4c55-9a65-1f0d2f0a6b3e'] },
    },
    RetryAfter: {
      description:
        'Seconds to wait before retrying. Sent with 429 RATE_LIMITED; 429 TOO_MANY_ATTEMPTS has none (that flow has to start again). A 503 carries it only when the service knows how long the part will be down (none does yet): without it, back off and retry.',
      schema: { type: 'integer', minimum: 0, examples: [840] },
    },
    IdempotentReplayed: {
      description:
        '`true` when this is the stored answer of an earlier request with the same Idempotency-Key.',
      schema: { type: 'string', enum: ['true'] },
    },
  }
  for (const item of Object.values<Json>(doc.paths)) {
    for (const op of Object.values<Json>(item)) {
      if (!op || typeof op !== 'object' || !op.responses) continue
      const idempotent = (op.parameters ?? []).some(
        (p: Json) => p.in === 'header' && /^idempotency-key$/i.test(p.name),
      )
      const limited = writeKindOf(op.operationId)
      if (limited) {
        const l = WRITE_LIMITS[limited]
        op.responses['429'] ??= errorDoc(
          'RATE_LIMITED',
          `more than the limit on ${l.what} (by default ${l.perUser} per account and ${l.perIp} per IP address per ${l.windowMs >= 3_600_000 ? 'hour' : 'minute'}; RATE_LIMIT_WRITES); Retry-After says when to try again`,
        )
      }
      if (op.requestBody?.content?.['application/json']) {
        op.responses['413'] ??= errorDoc('PAYLOAD_TOO_LARGE', 'the JSON body is over 1 MiB')
        op.responses['415'] ??= errorDoc('UNSUPPORTED_MEDIA_TYPE', 'the body is not `application/json`')
      }
      op.responses = Object.fromEntries(
        Object.entries<Json>(op.responses).sort(([a], [b]) => a.localeCompare(b)),
      )
      const errorCodes = new Set<string>()
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        const media = Number(status) >= 400 ? response.content?.['application/json'] : undefined
        if (media?.examples) {
          // The codes this status can carry, as an enum the generated clients turn into a union.
          const codes = Object.keys(media.examples)
          for (const c of codes) errorCodes.add(c)
          if (!media.schema?.allOf)
            media.schema = {
              allOf: [
                media.schema,
                {
                  type: 'object',
                  required: ['data'],
                  additionalProperties: true,
                  properties: {
                    data: {
                      type: 'object',
                      required: ['code'],
                      properties: { code: { type: 'string', enum: codes } },
                      additionalProperties: true,
                    },
                  },
                },
              ],
            }
        }
        response.headers = { 'x-request-id': { $ref: '#/components/headers/RequestId' }, ...response.headers }
        if (status === '429' || status === '503')
          response.headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' }
        if (idempotent && status.startsWith('2'))
          response.headers['idempotent-replayed'] = { $ref: '#/components/headers/IdempotentReplayed' }
      }
      // Every code of the catalogue (docs/errors.md) the operation can answer, in one list.
      op['x-error-codes'] = [...errorCodes].sort()
    }
  }
}

function errorDoc(code: 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'RATE_LIMITED', when: string) {
  const [status, doc] = Object.entries(errorResponses({ [code]: when })).find(
    ([s]) => s !== '400' && s !== '500',
  )!
  void status
  return convertRefs(doc) as Json
}

/** `{ $ref: 'ErrorEnvelope' }` as the document writes it. */
function convertRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convertRefs)
  if (!node || typeof node !== 'object') return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node as Json))
    out[k] =
      k === '$ref' && typeof v === 'string' && !v.startsWith('#')
        ? `#/components/schemas/${v}`
        : convertRefs(v)
  return out
}

export async function registerOpenApi(app: FastifyInstance, config: Config) {
  app.addSchema(ErrorEnvelope)
  // Response schemas name their resources with `$id` for the document, where each becomes one
  // component. The serializer gets a copy without the names: fast-json-stringify refuses a schema
  // in which one name occurs twice (a User has two images), and it needs no names to serialise.
  const names = new Map<string, string>()
  const documented = new WeakMap<object, unknown>()
  app.addHook('onRoute', (route: RouteOptions) => {
    const response = route.schema?.response
    if (!response) return
    checkSchemaNames(response, names, route.url)
    documented.set(route, route.schema)
    route.schema = { ...route.schema, response: withoutNames(response) }
  })

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'WorkPay API', version: '1.0.0', description: DESCRIPTION },
      servers: [{ url: config.publicUrl, description: 'this service' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'The permanent token from /v1/auth/account/verify, /v1/auth/login or /v1/auth/login/2fa.',
          },
          metricsToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The METRICS_TOKEN of the deployment (only when the operator set one).',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) ?? `def-${i}` },
    transform: ({ schema: served, url, route }) => {
      const schema = (documented.get(route) ?? served) as typeof served
      const operational = OPERATIONAL[url]
      const path = url.endsWith('/') && url !== '/' && !TRAILING_SLASH_PATHS.has(url) ? url.slice(0, -1) : url
      if (!operational) return { schema, url: path }
      const { hide: _hide, ...own } = (schema ?? {}) as Json
      return { schema: { ...operational, ...own } as typeof schema, url: path }
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: Json }).openapiObject
      finishDocument(doc)
      return doc
    },
  })
  await registerReference(app)

  // The document (1.9 MB of JSON) is made once, at the first request: serialising it for each one
  // left megabytes of garbage per request, which V8 keeps resident until its next full collection.
  let document: string | undefined
  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => {
    document ??= JSON.stringify(app.swagger())
    return reply.type('application/json; charset=utf-8').send(document)
  })
}
