// The webhooks contract: an endpoint, the one answer that carries its secret (creation and
// rotation), the delivery log, and the request bodies and queries of /v1/webhooks.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { DEFAULT_PREVIOUS_SECRET_SECONDS, MAX_PREVIOUS_SECRET_SECONDS, WEBHOOK_EVENTS } from './catalog.ts'

const EventName = Type.Union(
  WEBHOOK_EVENTS.map((t) => Type.Literal(t)),
  { description: 'a money event' },
)

const DeliveryType = Type.Union(
  [...WEBHOOK_EVENTS, 'webhook.test' as const].map((t) => Type.Literal(t)),
  { description: 'a money event, or `webhook.test` for a test delivery' },
)

export const EndpointUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'where deliveries are POSTed: an https URL on the public internet (in development and tests also http://localhost)',
  examples: ['https://shop.example.com/hooks/workpay'],
})

const endpointId = '6b0483c0bce238a5cbe00a90'
const endpointExample = {
  _id: endpointId,
  url: 'https://shop.example.com/hooks/workpay',
  description: 'Order fulfilment',
  events: ['escrow.funded', 'escrow.released'],
  collectionId: null,
  previousSecretExpiresAt: null,
  createdAt: EX.created,
  updatedAt: EX.created,
}
const secretExample = 'whsec_q0sO3tY2w7lmB1xq2mV0c5o3QdpQ9Q1l6m8b7c9x0zY='

const endpointFields = {
  _id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(EventName, { description: 'the events delivered to it' }),
  collectionId: Type.Union([Type.String(), Type.Null()], {
    description:
      'set for a collection’s `paymentWebHook` (its payment confirmed and released); null for an account endpoint',
  }),
  previousSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description:
      'after a rotation: until when the replaced secret still signs beside the new one (a second `v1,` signature); null when only one secret signs',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}

export const WebhookEndpoint = Type.Object(endpointFields, {
  $id: 'WebhookEndpoint',
  description: 'A URL the platform POSTs signed money events to.',
  examples: [endpointExample],
})

export const WebhookEndpointWithSecret = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      description:
        'the signing secret, Standard Webhooks style: `whsec_` and the base64 of the HMAC-SHA256 key; shown only in this answer, store it now',
    }),
  },
  {
    $id: 'WebhookEndpointWithSecret',
    description: 'A new endpoint, or one whose secret was just rotated, with its secret: shown this once.',
    examples: [{ ...endpointExample, secret: secretExample }],
  },
)

export const WebhookEndpointPage = Type.Object(
  {
    data: Type.Array(WebhookEndpoint),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  {
    $id: 'WebhookEndpointPage',
    examples: [{ data: [endpointExample], total: 1, pages: 1, page: 1, limit: 12 }],
  },
)

const DeliveryStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')],
  {
    description:
      '`pending`: an attempt is due at `nextAttemptAt`; `delivered`: a 2xx answer; `failed`: every attempt failed',
  },
)

const deliveryExample = {
  _id: '6b0483c1bce238a5cbe00a91',
  endpointId,
  eventId: '6b0483c1bce238a5cbe00a92',
  type: 'escrow.funded',
  status: 'pending',
  attempts: 2,
  maxAttempts: 10,
  lastStatusCode: 503,
  lastError: 'HTTP 503',
  responseExcerpt: 'Service Unavailable',
  nextAttemptAt: EX.later,
  lastAttemptAt: EX.updated,
  deliveredAt: null,
  createdAt: EX.created,
  updatedAt: EX.updated,
}

export const WebhookDelivery = Type.Object(
  {
    _id: Type.String(),
    endpointId: Type.String(),
    eventId: Type.String({ description: 'the event’s id, sent as `webhook-id` (the same on every attempt)' }),
    type: DeliveryType,
    status: DeliveryStatus,
    attempts: Type.Integer({ description: 'attempts made so far' }),
    maxAttempts: Type.Integer(),
    lastStatusCode: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'the HTTP status of the last answer; null before one, or when none came (timeout, refused)',
    }),
    lastError: Type.Union([Type.String(), Type.Null()], {
      description: 'why the last attempt failed (`HTTP 500`, `failed: …`, `refused: …`)',
    }),
    responseExcerpt: Type.Union([Type.String(), Type.Null()], {
      description: 'the first 256 characters of the last answer’s body (nothing more is kept)',
    }),
    nextAttemptAt: NullableTimestamp,
    lastAttemptAt: NullableTimestamp,
    deliveredAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'WebhookDelivery',
    description: 'One event sent (or being sent) to one endpoint.',
    examples: [deliveryExample],
  },
)

export const WebhookDeliveryPage = Type.Object(
  {
    data: Type.Array(WebhookDelivery),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  {
    $id: 'WebhookDeliveryPage',
    examples: [{ data: [deliveryExample], total: 1, pages: 1, page: 1, limit: 12 }],
  },
)

export const CreateWebhookBody = Type.Object(
  {
    url: EndpointUrl,
    events: Type.Optional(
      Type.Array(EventName, { minItems: 1, maxItems: 20, description: 'default: every money event' }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200, pattern: '^[^\\u0000]*$' })),
  },
  {
    additionalProperties: false,
    examples: [
      { url: 'https://shop.example.com/hooks/workpay', events: ['escrow.funded', 'escrow.released'] },
    ],
  },
)

export const RotateWebhookBody = Type.Object(
  {
    previousSecretExpiresIn: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_PREVIOUS_SECRET_SECONDS,
        description: `seconds the replaced secret keeps signing beside the new one (0: it stops at once; at most 7 days); default ${DEFAULT_PREVIOUS_SECRET_SECONDS} (24 hours)`,
      }),
    ),
  },
  { additionalProperties: false, examples: [{ previousSecretExpiresIn: 3600 }] },
)

export const ListWebhooksQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false })

export const ListDeliveriesQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(DeliveryStatus) },
  { additionalProperties: false },
)

export const WebhookIdParams = Type.Object({ id: Id('the endpoint’s id') }, { additionalProperties: false })
