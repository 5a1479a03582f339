// What webhooks carry: the money events (each a domain event of src/modules/events/types.ts), the
// ones a collection's paymentWebHook receives, the JSON body of a delivery and the retry schedule.
import type { DomainEvent, EventType } from '../events/types.ts'

/** The events an account endpoint may ask for: every movement of money. */
export const WEBHOOK_EVENTS = [
  'deposit.credited',
  'withdrawal.sent',
  'withdrawal.failed',
  'escrow.funded',
  'escrow.released',
] as const satisfies readonly EventType[]
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]

/** The events a collection's paymentWebHook receives: its payment confirmed, its payout sent. */
export const COLLECTION_EVENTS = [
  'escrow.funded',
  'escrow.released',
] as const satisfies readonly WebhookEvent[]

export function isWebhookEvent(type: string): type is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(type)
}

/** The JSON body of a delivery: the event as it was recorded. */
export function deliveryBody(event: DomainEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt.toISOString(),
    collectionId: event.collectionId,
    data: event.data,
  })
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * The wait after each failed attempt (the first attempt is immediate): 10 attempts in all over
 * about 22 hours, 1 min, 2 min, 5 min, 15 min, 30 min, 1 h, 2 h, 6 h, 12 h.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  6 * HOUR,
  12 * HOUR,
]

/** Account endpoints a user may have at once (collection endpoints are not counted). */
export const MAX_ACCOUNT_ENDPOINTS = 20

/** How long a rotated-away secret keeps signing beside the new one, by default and at most. */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 24 * 60 * 60
export const MAX_PREVIOUS_SECRET_SECONDS = 7 * 24 * 60 * 60

/** The associated data a secret is sealed with: it only opens for its own endpoint. */
export const secretAad = (endpointId: string) => `webhook:${endpointId}`
