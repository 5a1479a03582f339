// Notifications: fed by the domain events (a subscriber in the event's transaction), pushed live,
// mailed in digests; the routes under /v1/notifications and the account's e-mail preferences.
import type { FastifyInstance } from 'fastify'
import type { EventService } from '../events/types.ts'
import { notificationRoutes } from './routes.ts'
import { DIGEST_JOB, type NotificationDeps, NotificationService } from './service.ts'

export function buildNotifications(d: NotificationDeps & { events: EventService }) {
  const { events, ...deps } = d
  const notifications = new NotificationService(deps)
  events.subscribe('notifications', notifications.onEvent)
  deps.jobs.register(DIGEST_JOB, (job) => notifications.sendDigest(job), { maxAttempts: 20 })
  return { notifications }
}

export async function notificationsHttp(app: FastifyInstance, s: { notifications: NotificationService }) {
  await app.register(notificationRoutes, { notifications: s.notifications })
}
