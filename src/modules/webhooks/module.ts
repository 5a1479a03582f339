// Webhooks: endpoints (an account's, and a collection's paymentWebHook) and the signed, retried
// deliveries of money events to them. Built before the collections, which keep a collection's
// endpoint through `collectionHooks`.
import type { FastifyInstance } from 'fastify'
import type { EventService } from '../events/types.ts'
import { DELIVER_JOB, type DeliveryDeps, WebhookDelivery } from './delivery.ts'
import { webhookRoutes } from './routes.ts'
import { WebhookService } from './service.ts'

export function buildWebhooks(d: DeliveryDeps & { events: EventService; production: boolean }) {
  const { events, production, ...deps } = d
  const webhooks = new WebhookService({
    db: deps.db,
    clock: deps.clock,
    secrets: deps.secrets,
    production,
    events,
  })
  const delivery = new WebhookDelivery(deps)
  events.subscribe('webhooks', delivery.onEvent)
  // One attempt per job: the retry schedule is the delivery's own; the queue only retries a run
  // that failed before recording its attempt (the database was unreachable).
  deps.jobs.register(DELIVER_JOB, (job) => delivery.deliver(job), { maxAttempts: 5, baseDelayMs: 5_000 })
  return { webhooks, webhookDelivery: delivery }
}

export async function webhooksHttp(app: FastifyInstance, s: { webhooks: WebhookService }) {
  await app.register(webhookRoutes, { webhooks: s.webhooks })
}
