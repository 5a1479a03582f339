// HTTP for webhook endpoints (/v1/webhooks): register, list, read, delete, rotate the secret, and
// read an endpoint's delivery log, send a test event. Everything is the caller's own: another
// user's endpoint is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, EmptyObject, envelope, guardedErrors, ok } from '../../http/schemas.ts'
import { MAX_ACCOUNT_ENDPOINTS } from './catalog.ts'
import {
  CreateWebhookBody,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  RotateWebhookBody,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointPage,
  WebhookEndpointWithSecret,
  WebhookIdParams,
} from './schemas.ts'
import type { WebhookService } from './service.ts'

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (
  app,
  { webhooks },
) => {
  const tags = ['webhooks']
  const security = bearer
  const HIDDEN = {
    NOT_FOUND: { when: 'no endpoint of the caller has this id', message: 'webhook endpoint not found' },
  }

  app.post(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        summary: 'Register a webhook endpoint for the caller’s money events',
        description: `Deliveries are JSON POSTs signed per Standard Webhooks (\`webhook-id\`: the event id, \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">\`; any standardwebhooks library verifies them), retried for about a day until a 2xx answer; see docs/webhooks.md. \`events\` (default: all) picks among deposit.credited, withdrawal.sent, withdrawal.failed, escrow.funded and escrow.released, for the caller’s own wallet and the escrows they pay or are paid from. The answer carries \`secret\`, shown only here (a new one: POST /v1/webhooks/{id}/rotate). At most ${MAX_ACCOUNT_ENDPOINTS} endpoints per account.`,
        tags,
        security,
        body: CreateWebhookBody,
        response: {
          200: envelope(WebhookEndpointWithSecret, 'Webhook endpoint created'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a URL that is not https (http only for localhost outside production), carries credentials or a fragment, or names a host that is not on the public internet; an unknown event',
            WEBHOOK_LIMIT_REACHED: {
              when: `the caller already has ${MAX_ACCOUNT_ENDPOINTS} endpoints`,
              message: `An account may have at most ${MAX_ACCOUNT_ENDPOINTS} webhook endpoints`,
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await webhooks.create(caller(req).userId, req.body), 'Webhook endpoint created'),
  )

  app.get(
    '/v1/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        summary: 'The caller’s webhook endpoints, newest first',
        description:
          'Account endpoints and the endpoints of the caller’s collections (`collectionId` set: a collection’s `paymentWebHook`). Secrets are never listed.',
        tags,
        security,
        querystring: ListWebhooksQuery,
        response: { 200: envelope(WebhookEndpointPage, 'Webhook endpoints'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await webhooks.list(caller(req).userId, req.query), 'Webhook endpoints'),
  )

  app.get(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        summary: 'One of the caller’s webhook endpoints',
        tags,
        security,
        params: WebhookIdParams,
        response: { 200: envelope(WebhookEndpoint, 'Webhook endpoint'), ...guardedErrors(HIDDEN) },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await webhooks.get(caller(req).userId, req.params.id), 'Webhook endpoint'),
  )

  app.delete(
    '/v1/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log',
        description:
          'Attempts still due are dropped. Deleting a collection’s endpoint removes the collection’s `paymentWebHook`.',
        tags,
        security,
        params: WebhookIdParams,
        response: { 200: envelope(EmptyObject, 'Webhook endpoint deleted'), ...guardedErrors(HIDDEN) },
      },
      onRequest: app.authenticate,
    },
    async (req) => {
      await webhooks.remove(caller(req).userId, req.params.id)
      return ok({}, 'Webhook endpoint deleted')
    },
  )

  app.post(
    '/v1/webhooks/:id/rotate',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'Give a webhook endpoint a new signing secret',
        description:
          'The new secret is in this answer only. It signs every attempt from now on, retries of earlier events included. The replaced secret keeps signing beside it (two space-separated `v1,` signatures in `webhook-signature`) until `previousSecretExpiresAt`: 24 hours by default, `previousSecretExpiresIn` seconds when given (0: it stops at once). A second rotation within that time drops the older secret.',
        tags,
        security,
        params: WebhookIdParams,
        body: RotateWebhookBody,
        response: {
          200: envelope(WebhookEndpointWithSecret, 'Webhook secret rotated'),
          ...guardedErrors(HIDDEN),
        },
      },
      onRequest: app.authenticate,
      // the body is optional: none is the default overlap
      preValidation: async (req) => {
        req.body ??= {}
      },
    },
    async (req) =>
      ok(await webhooks.rotate(caller(req).userId, req.params.id, req.body), 'Webhook secret rotated'),
  )

  app.post(
    '/v1/webhooks/:id/test',
    {
      schema: {
        operationId: 'sendTestWebhook',
        summary: 'Send a test event to one of the caller’s endpoints',
        description:
          'Queues a `webhook.test` event for this endpoint only, signed, retried and logged like every delivery (its `webhook-id` is the event’s id; the body is `{ id, type: "webhook.test", createdAt, collectionId: null, data: { endpointId } }`). Answers the delivery, whose first attempt follows at once; its outcome is in the delivery log. Limited per account and per IP (`webhooktests` in the limits table).',
        tags,
        security,
        params: WebhookIdParams,
        response: { 200: envelope(WebhookDelivery, 'Test delivery queued'), ...guardedErrors(HIDDEN) },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await webhooks.sendTest(caller(req).userId, req.params.id), 'Test delivery queued'),
  )

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of one of the caller’s endpoints, newest first',
        description:
          'One entry per event sent to the endpoint: its status, attempts, the last answer’s status code and a short excerpt of its body, and when the next attempt is due. Query `status` filters.',
        tags,
        security,
        params: WebhookIdParams,
        querystring: ListDeliveriesQuery,
        response: { 200: envelope(WebhookDeliveryPage, 'Webhook deliveries'), ...guardedErrors(HIDDEN) },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await webhooks.deliveries(caller(req).userId, req.params.id, req.query), 'Webhook deliveries'),
  )
}
