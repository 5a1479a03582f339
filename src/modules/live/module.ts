// Live pushes over WebSockets: this process's hub (sockets, LISTEN, heartbeats) and presence, the
// domain events of money forwarded to their audience, and the /v1/live route. The hub runs only
// where HTTP is served (`liveHttp` starts it when the app is ready); the event subscriber runs in
// every process, since a worker's change reaches the API processes through the database.
import websocket from '@fastify/websocket'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Database } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import type { EventService } from '../events/types.ts'
import { LiveHub, type LiveOptions, newProcessId } from './hub.ts'
import { Presence } from './presence.ts'
import { publishLive } from './publish.ts'
import { liveRoutes } from './routes.ts'

/** Writes a push for a user's sockets in the caller's transaction (chat messages use it). */
export { publishLive } from './publish.ts'

/** Domain events pushed to their audience as they are (notifications are pushed by their module). */
export const FORWARDED_EVENTS = new Set([
  'deposit.credited',
  'withdrawal.sent',
  'withdrawal.failed',
  'escrow.funded',
  'escrow.released',
])

export interface LiveDeps {
  database: Database
  log: Logger
  events: Pick<EventService, 'subscribe'>
  /** resolves a bearer token to its live session */
  authenticate(token: string): Promise<AuthContext | undefined>
  options?: Partial<LiveOptions>
}

export function buildLive(d: LiveDeps) {
  const presence = new Presence({ db: d.database.db, processId: newProcessId(), staleMs: 90_000 })
  const live = new LiveHub({
    database: d.database,
    presence,
    log: d.log,
    authenticate: d.authenticate,
    ...(d.options ? { options: d.options } : {}),
  })
  d.events.subscribe('live', async (tx, event) => {
    if (!FORWARDED_EVENTS.has(event.type) || event.audience.length === 0) return
    await publishLive(tx, {
      userIds: event.audience,
      type: event.type,
      data: {
        _id: event.id,
        type: event.type,
        collection: event.collectionId,
        data: event.data,
        createdAt: event.createdAt,
      },
    })
  })
  return { live }
}

export async function liveHttp(
  app: FastifyInstance,
  s: { live: LiveHub; auth: { authenticate: LiveDeps['authenticate'] } },
) {
  const hub = s.live
  await app.register(websocket, {
    options: { maxPayload: 64 * 1024 },
    // Sockets are closed with 1001 (going away) and the process leaves presence before the server
    // stops.
    preClose: async function (this: FastifyInstance) {
      await hub.stop()
      await new Promise<void>((resolve) => this.websocketServer.close(() => resolve()))
    },
  })
  await app.register(liveRoutes, { hub, authenticate: (token: string) => s.auth.authenticate(token) })
  app.addHook('onReady', () => hub.start())
}
