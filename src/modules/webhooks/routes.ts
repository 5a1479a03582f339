// HTTP for webhook endpoints (/v1/webhooks): register, list, read, delete, rotate the secret, and
// read an endpoint's delivery log, send a test event. Everything is the caller's own: another
// user's endpoint is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from 'typebox'
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
  /** The options of a route on one of the caller's endpoints: `:id`, another user's is 404. */
  const onOwnEndpoint = <S extends object, D extends TSchema>(schema: S, data: D, message: string) => ({
    schema: {
      ...schema,
      tags,
      security,
      params: WebhookIdParams,
      response: { 200: envelope(data, message), ...guardedErrors(HIDDEN) },
    },
    onRequest: app.authenticate,
  })

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
    onOwnEndpoint(
      { operationId: 'getWebhook', summary: 'One of the caller’s webhook endpoints' },
      WebhookEndpoint,
      'Webhook endpoint',
    ),
    async (req) => ok(await webhooks.get(caller(req).userId, req.params.id), 'Webhook endpoint'),
  )

  app.delete(
    '/v1/webhooks/:id',
    onOwnEndpoint(
      {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint and its delivery log',
        description:
          'Attempts still due are dropped. Deleting a collection’s endpoint removes the collection’s `paymentWebHook`.',
      },
      EmptyObject,
      'Webhook endpoint deleted',
    ),
    async (req) => {
      await webhooks.remove(caller(req).userId, req.params.id)
      return ok({}, 'Webhook endpoint deleted')
    },
  )

  app.post(
    '/v1/webhooks/:id/rotate',
    {
      ...onOwnEndpoint(
        {
          operationId: 'rotateWebhookSecret',
          summary: 'Give a webhook endpoint a new signing secret',
          description:
            'The new secret is in this answer only. It signs every attempt from now on, retries of earlier events included. The replaced secret keeps signing beside it (two space-separated `v1,` signatures in `webhook-signature`) until `previousSecretExpiresAt`: 24 hours by default, `previousSecretExpiresIn` seconds when given (0: it stops at once). A second rotation within that time drops the older secret.',
          body: RotateWebhookBody,
        },
        WebhookEndpointWithSecret,
        'Webhook secret rotated',
      ),
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
    onOwnEndpoint(
      {
        operationId: 'sendTestWebhook',
        summary: 'Send a test event to one of the caller’s endpoints',
        description:
          'Queues a `webhook.test` event for this endpoint only, signed, retried and logged like every delivery (its `webhook-id` is the event’s id; the body is `{ id, type: "webhook.test", createdAt, collectionId: null, data: { endpointId } }`). Answers the delivery, whose first attempt follows at once; its outcome is in the delivery log. Limited per account and per IP (`webhooktests` in the limits table).',
      },
      WebhookDelivery,
      'Test delivery queued',
    ),
    async (req) => ok(await webhooks.sendTest(caller(req).userId, req.params.id), 'Test delivery queued'),
  )

  app.get(
    '/v1/webhooks/:id/deliveries',
    onOwnEndpoint(
      {
        operationId: 'listWebhookDeliveries',
        summary: 'The delivery log of one of the caller’s endpoints, newest first',
        description:
          'One entry per event sent to the endpoint: its status, attempts, the last answer’s status code and a short excerpt of its body, and when the next attempt is due. Query `status` filters.',
        querystring: ListDeliveriesQuery,
      },
      WebhookDeliveryPage,
      'Webhook deliveries',
    ),
    async (req) =>
      ok(await webhooks.deliveries(caller(req).userId, req.params.id, req.query), 'Webhook deliveries'),
  )
}
