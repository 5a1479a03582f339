// GET /v1/live: the WebSocket of live pushes. The token comes in the Authorization header or the
// `token` query parameter (checked before the upgrade: a bad one is a 401), or, for clients that
// can set neither, in a first `{type:'auth', data:{token}}` message.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { errors } from '../../http/errors.ts'
import { bearer, guardedErrors } from '../../http/schemas.ts'
import type { LiveHub } from './hub.ts'

const DESCRIPTION = `A WebSocket (\`ws://\` or \`wss://\` on this path) that pushes what happens to the caller as it happens.

**Authentication**, one of: the \`Authorization: Bearer <token>\` header; the \`token\` query parameter (for browsers, which cannot set headers on a WebSocket; it is never logged); or, without either, a first message \`{"type":"auth","data":{"token":"<token>"}}\` within 10 seconds. A bad token in the header or query answers 401 before the upgrade; a bad or missing one in the first message closes the socket with code 4401, as does a session that is revoked later (logout, password change; checked at every heartbeat).

**Messages** are JSON objects \`{ "type", "data", "id"? }\`. The server sends \`ready\` (\`data.userId\`) once the socket is registered, then pushes: \`chat.message\` (an \`IChatMessage\`), \`chat.read\` (\`{conversationId, userId, readAt}\`), and the domain events of the caller (notifications, deposits credited, withdrawals sent or failed, escrows funded or released) with the event's type as \`type\`. Requests of the client carry an \`id\` and are answered by \`ack\` (with the result as \`data\`) or \`error\` (\`data.code\` and \`message\` as in the HTTP envelope) with the same \`id\`: \`ping\` (answered by \`pong\`), \`chat.send\` (\`{conversationId, content, mediaId?, quotedContentId?}\`), \`chat.read\` (\`{conversationId}\`).

**Heartbeat and backpressure.** The server pings every 25 seconds and closes a socket that did not answer the previous ping; a socket with more than 1 MiB waiting to be sent is closed with 4408 rather than buffered for. An account holds at most RATE_LIMIT_LIVE_SOCKETS (20) open sockets across every API process: a new one closes its oldest with 4429. Pushes reach sockets on every API process (PostgreSQL LISTEN/NOTIFY); a client that reconnects should re-read what it shows (e.g. GET /v1/chat), since pushes are not replayed.

**Presence.** While a user holds a socket on any process, their \`socket.status\` in the User form is \`ONLINE\`, \`OFFLINE\` otherwise.`

const Query = Type.Object(
  { token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'the bearer token' })) },
  { additionalProperties: true },
)

function tokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization
  if (typeof header === 'string') return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? ''
  const q = (req.query as { token?: unknown } | undefined)?.token
  return typeof q === 'string' ? q : undefined
}

export async function liveRoutes(
  app: FastifyInstance,
  { hub, authenticate }: { hub: LiveHub; authenticate: LiveHubAuth },
) {
  const known = new WeakMap<FastifyRequest, { ctx: { userId: string; sessionId: string }; token: string }>()
  app.route({
    method: 'GET',
    url: '/v1/live',
    schema: {
      operationId: 'liveSocket',
      summary: 'The live WebSocket: pushes, chat and presence',
      description: DESCRIPTION,
      tags: ['live'],
      security: bearer,
      querystring: Query,
      response: {
        101: { description: 'Switching Protocols: the WebSocket is open', type: 'null' },
        ...guardedErrors({
          UPGRADE_REQUIRED: {
            when: 'the request is not a WebSocket handshake',
            message: 'Connect with a WebSocket handshake',
          },
        }),
      },
    },
    preValidation: async (req) => {
      // A plain request is a guarded route like any other, then told to upgrade.
      if (!req.ws) return app.authenticate(req)
      const token = tokenOf(req)
      if (token === undefined) return
      const ctx = token ? await authenticate(token) : undefined
      if (!ctx) throw errors.unauthenticated('Invalid, expired or revoked token')
      known.set(req, { ctx, token })
    },
    handler: async (_req: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(426)
        .header('upgrade', 'websocket')
        .send({
          status: 'error',
          message: 'Connect with a WebSocket handshake',
          data: { code: 'UPGRADE_REQUIRED' },
        }),
    wsHandler: (socket, req) => hub.accept(socket, known.get(req)),
  })
}

export type LiveHubAuth = (token: string) => Promise<{ userId: string; sessionId: string } | undefined>
