// Webhook endpoints: an account's (choosing its events) and a collection's paymentWebHook (its
// money events), each with its own signing secret, shown once (on creation and on rotation) and
// sealed at rest; and each endpoint's delivery log. Only the owner ever sees an endpoint: anyone
// else's id is 404.
import type { RawBuilder } from 'kysely'
import { type Db, type Executor, inTransaction, type Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import type { EventService } from '../events/types.ts'
import {
  COLLECTION_EVENTS,
  DEFAULT_PREVIOUS_SECRET_SECONDS,
  MAX_ACCOUNT_ENDPOINTS,
  secretAad,
  WEBHOOK_EVENTS,
} from './catalog.ts'
import { type DeliveryRow, type EndpointRow, webhookRepo } from './repo.ts'
import { newSecret } from './signing.ts'
import { checkEndpointUrl } from './urls.ts'

export interface WebhookServiceDeps {
  db: Db
  clock: Clock
  secrets: SecretBox
  /** production rules for URLs (https, public hosts) */
  production: boolean
  events: EventService
}

export interface RotateInput {
  /** seconds the replaced secret keeps signing beside the new one (0: none) */
  previousSecretExpiresIn?: number
}

export interface CreateEndpointInput {
  url: string
  events?: string[]
  description?: string
}

function endpointView(row: EndpointRow, now: Date) {
  const previous = row.previousSecretExpiresAt
  return {
    _id: row.id,
    url: row.url,
    description: row.description,
    events: row.events,
    collectionId: row.collectionId,
    previousSecretExpiresAt: previous && previous > now ? previous : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

function deliveryView(row: DeliveryRow) {
  return {
    _id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    responseExcerpt: row.responseExcerpt,
    nextAttemptAt: row.nextAttemptAt,
    lastAttemptAt: row.lastAttemptAt,
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  #seal(endpointId: string): { secret: string; sealed: string } {
    const secret = newSecret()
    return { secret, sealed: this.deps.secrets.seal(secret, secretAad(endpointId)) }
  }

  /** Registers an account endpoint; the answer carries its secret, shown this once. */
  async create(ownerId: string, input: CreateEndpointInput) {
    const url = checkEndpointUrl(input.url, this.deps.production)
    const events = [...new Set(input.events ?? WEBHOOK_EVENTS)]
    if (events.length === 0) throw errors.field('/events', 'name at least one event')
    const id = newId(this.deps.clock.now().getTime())
    const { secret, sealed } = this.#seal(id)
    await inTransaction(this.deps.db, async (tx) => {
      if ((await webhookRepo.countOwned(tx, ownerId, true)) >= MAX_ACCOUNT_ENDPOINTS)
        throw errors.named(
          'WEBHOOK_LIMIT_REACHED',
          `An account may have at most ${MAX_ACCOUNT_ENDPOINTS} webhook endpoints`,
        )
      await webhookRepo.insertEndpoint(tx, {
        id,
        ownerId,
        collectionId: null,
        url,
        description: (input.description ?? '').trim(),
        events,
        secretSealed: sealed,
        now: this.deps.clock.now(),
      })
    })
    return { ...(await this.get(ownerId, id)), secret }
  }

  async list(ownerId: string, q: { page?: number; limit?: number }) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await webhookRepo.pageOwned(this.deps.db, ownerId, { page, limit })
    const now = this.deps.clock.now()
    return {
      data: rows.map((r) => endpointView(r, now)),
      total,
      pages: Math.ceil(total / limit),
      page,
      limit,
    }
  }

  async get(ownerId: string, id: string) {
    const row = await webhookRepo.getOwned(this.deps.db, ownerId, id)
    if (!row) throw errors.notFound('webhook endpoint')
    return endpointView(row, this.deps.clock.now())
  }

  /** Deletes an endpoint and its delivery log; deliveries still queued are dropped. */
  async remove(ownerId: string, id: string) {
    if (!(await webhookRepo.deleteOwned(this.deps.db, ownerId, id))) throw errors.notFound('webhook endpoint')
  }

  /**
   * A new secret for the endpoint, shown this once. The secret it replaces keeps signing beside it
   * (a second signature in `webhook-signature`) for `previousSecretExpiresIn` seconds, so a
   * receiver can switch without refusing a delivery; 0 stops it at once.
   */
  async rotate(ownerId: string, id: string, input: RotateInput = {}) {
    const keepFor = input.previousSecretExpiresIn ?? DEFAULT_PREVIOUS_SECRET_SECONDS
    const now = this.deps.clock.now()
    const { secret, sealed } = this.#seal(id)
    const previousExpiresAt = keepFor > 0 ? new Date(now.getTime() + keepFor * 1000) : null
    if (!(await webhookRepo.setSecret(this.deps.db, ownerId, id, { sealed, previousExpiresAt, now })))
      throw errors.notFound('webhook endpoint')
    return { ...(await this.get(ownerId, id)), secret }
  }

  async deliveries(ownerId: string, id: string, q: { page?: number; limit?: number; status?: string }) {
    await this.get(ownerId, id)
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await webhookRepo.pageDeliveries(this.deps.db, id, q.status, { page, limit })
    return { data: rows.map(deliveryView), total, pages: Math.ceil(total / limit), page, limit }
  }

  /**
   * Sends a `webhook.test` event to one of the owner's endpoints (an account's or a collection's),
   * through the same signed, retried and logged delivery as every event; answers the delivery,
   * whose first attempt is queued.
   */
  async sendTest(ownerId: string, id: string) {
    const delivery = await inTransaction(this.deps.db, async (tx) => {
      if (!(await webhookRepo.getOwned(tx, ownerId, id))) throw errors.notFound('webhook endpoint')
      const event = await this.deps.events.emit(tx, {
        type: 'webhook.test',
        actorId: ownerId,
        audience: [],
        data: { endpointId: id },
      })
      return webhookRepo.deliveryOf(tx, id, event!.id)
    })
    return deliveryView(delivery!)
  }

  /** What the collections feature uses for a collection's paymentWebHook (in its transactions). */
  readonly collectionHooks = {
    /**
     * Sets (or with null removes) the collection's endpoint, owned by its creator. A new endpoint's
     * secret is returned (shown once); changing the URL keeps the secret.
     */
    set: async (
      tx: Tx,
      input: { collectionId: string; ownerId: string; url: string | null; path?: string; created?: boolean },
    ): Promise<{ secret: string | null }> => {
      const url = input.url === null ? null : checkEndpointUrl(input.url, this.deps.production, input.path)
      const now = this.deps.clock.now()
      // A collection created in this transaction has no endpoint yet.
      const current = input.created ? undefined : await webhookRepo.ofCollection(tx, input.collectionId)
      if (url === null) {
        if (current) await webhookRepo.deleteById(tx, current.id)
        return { secret: null }
      }
      if (current) {
        if (current.url !== url) await webhookRepo.setUrl(tx, current.id, url, now)
        return { secret: null }
      }
      const id = newId(now.getTime())
      const { secret, sealed } = this.#seal(id)
      await webhookRepo.insertEndpoint(tx, {
        id,
        ownerId: input.ownerId,
        collectionId: input.collectionId,
        url,
        description: '',
        events: [...COLLECTION_EVENTS],
        secretSealed: sealed,
        now,
      })
      return { secret }
    },
    /** The paymentWebHook URL of each collection that has one. */
    urls: (ex: Executor, collectionIds: readonly string[]) => webhookRepo.collectionUrls(ex, collectionIds),
    /** The same URL as SQL, for a collection read to embed in its own query. */
    urlSql: (collectionId: RawBuilder<unknown>) => webhookRepo.collectionUrlSql(collectionId),
  }
}
