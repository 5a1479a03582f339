// Table types of webhook endpoints and their deliveries.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface WebhookEndpointsTable {
  id: string
  ownerId: string
  /** set for a collection's paymentWebHook */
  collectionId: string | null
  url: string
  description: ColumnType<string, string | undefined, string>
  events: ColumnType<string[], string[], string[]>
  /** the signing secret, sealed (src/platform/crypto/secrets.ts) with `webhook:<id>` */
  secretSealed: string
  /** the secret a rotation replaced, still signing beside the current one until it expires */
  previousSecretSealed: ColumnType<string | null, string | null | undefined, string | null>
  previousSecretExpiresAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface WebhookDeliveriesTable {
  id: string
  endpointId: string
  eventId: string
  eventType: string
  body: string
  /** pending, delivered or failed */
  status: ColumnType<string, string | undefined, string>
  attempts: ColumnType<number, number | undefined, number>
  maxAttempts: number
  lastStatusCode: number | null
  lastError: string | null
  responseExcerpt: string | null
  nextAttemptAt: NullableTimestamp
  lastAttemptAt: NullableTimestamp
  deliveredAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface WebhookTables {
  webhookEndpoints: WebhookEndpointsTable
  webhookDeliveries: WebhookDeliveriesTable
}
