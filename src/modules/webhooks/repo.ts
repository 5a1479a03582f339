// The only SQL on webhook endpoints and their deliveries.
import { type RawBuilder, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'

export const endpointColumns = [
  'id',
  'ownerId',
  'collectionId',
  'url',
  'description',
  'events',
  'previousSecretExpiresAt',
  'createdAt',
  'updatedAt',
] as const

export const deliveryColumns = [
  'id',
  'endpointId',
  'eventId',
  'eventType',
  'status',
  'attempts',
  'maxAttempts',
  'lastStatusCode',
  'lastError',
  'responseExcerpt',
  'nextAttemptAt',
  'lastAttemptAt',
  'deliveredAt',
  'createdAt',
  'updatedAt',
] as const

export interface NewEndpoint {
  id: string
  ownerId: string
  collectionId: string | null
  url: string
  description: string
  events: string[]
  secretSealed: string
  now: Date
}

export interface NewDelivery {
  id: string
  endpointId: string
  eventId: string
  eventType: string
  body: string
  maxAttempts: number
  nextAttemptAt: Date
  now: Date
}

/** What one attempt changed. */
export interface AttemptOutcome {
  status: 'pending' | 'delivered' | 'failed'
  lastStatusCode: number | null
  lastError: string | null
  responseExcerpt: string | null
  nextAttemptAt: Date | null
  deliveredAt: Date | null
  now: Date
}

const textArray = (values: readonly string[]) =>
  values.length ? sql<string[]>`array[${sql.join(values)}]::text[]` : sql<string[]>`'{}'::text[]`

export const webhookRepo = {
  async insertEndpoint(ex: Executor, e: NewEndpoint) {
    await ex
      .insertInto('webhookEndpoints')
      .values({
        id: e.id,
        ownerId: e.ownerId,
        collectionId: e.collectionId,
        url: e.url,
        description: e.description,
        events: textArray(e.events),
        secretSealed: e.secretSealed,
        createdAt: e.now,
        updatedAt: e.now,
      })
      .execute()
  },

  /** One endpoint of `ownerId` (undefined when unknown or someone else's). */
  getOwned(ex: Executor, ownerId: string, id: string) {
    return ex
      .selectFrom('webhookEndpoints')
      .select(endpointColumns)
      .where('id', '=', id)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
  },

  /** One page of the owner's endpoints, newest first, with the number of all. */
  pageOwned(ex: Executor, ownerId: string, p: PageRequest) {
    return countedPage(
      ex.selectFrom('webhookEndpoints').where('ownerId', '=', ownerId),
      (q) => q.select(endpointColumns),
      { by: ['createdAt', 'id'], first: 'newest' },
      p,
    )
  },

  async countOwned(ex: Executor, ownerId: string, accountOnly = false) {
    let q = ex
      .selectFrom('webhookEndpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('ownerId', '=', ownerId)
    if (accountOnly) q = q.where('collectionId', 'is', null)
    return Number((await q.executeTakeFirstOrThrow()).n)
  },

  async deleteOwned(ex: Executor, ownerId: string, id: string) {
    const res = await ex
      .deleteFrom('webhookEndpoints')
      .where('id', '=', id)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
    return Number(res.numDeletedRows) > 0
  },

  /**
   * A new secret for one of `ownerId`'s endpoints; the one it replaces is kept as the previous
   * secret until `previousExpiresAt` (null: dropped at once).
   */
  async setSecret(
    ex: Executor,
    ownerId: string,
    id: string,
    s: { sealed: string; previousExpiresAt: Date | null; now: Date },
  ) {
    const res = await ex
      .updateTable('webhookEndpoints')
      .set((eb) => ({
        secretSealed: s.sealed,
        previousSecretSealed: s.previousExpiresAt ? eb.ref('secretSealed') : null,
        previousSecretExpiresAt: s.previousExpiresAt,
        updatedAt: s.now,
      }))
      .where('id', '=', id)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** The endpoint of a collection, locked for a change. */
  ofCollection(ex: Executor, collectionId: string) {
    return ex
      .selectFrom('webhookEndpoints')
      .select(endpointColumns)
      .where('collectionId', '=', collectionId)
      .forUpdate()
      .executeTakeFirst()
  },

  async setUrl(ex: Executor, id: string, url: string, now: Date) {
    await ex.updateTable('webhookEndpoints').set({ url, updatedAt: now }).where('id', '=', id).execute()
  },

  async deleteById(ex: Executor, id: string) {
    await ex.deleteFrom('webhookEndpoints').where('id', '=', id).execute()
  },

  /** The URLs of the collections' endpoints, by collection id. */
  /**
   * The paymentWebHook URL of the collection whose id is `collectionId` (an expression of the
   * caller's query), or null: SQL for a collection read to embed.
   */
  collectionUrlSql(collectionId: RawBuilder<unknown>): RawBuilder<string | null> {
    return sql<
      string | null
    >`(select w.url from webhook_endpoints w where w.collection_id = ${collectionId} limit 1)`
  },

  async collectionUrls(ex: Executor, collectionIds: readonly string[]) {
    if (collectionIds.length === 0) return new Map<string, string>()
    const rows = await ex
      .selectFrom('webhookEndpoints')
      .select(['collectionId', 'url'])
      .where('collectionId', 'in', collectionIds)
      .execute()
    return new Map(rows.map((r) => [r.collectionId!, r.url]))
  },

  /**
   * The endpoints an event goes to: account endpoints of the users it concerns that asked for its
   * type, and the endpoint of the collection it is about.
   */
  matching(ex: Executor, e: { type: string; audience: readonly string[]; collectionId: string | null }) {
    return ex
      .selectFrom('webhookEndpoints')
      .select(['id'])
      .where(sql<boolean>`${e.type} = any(events)`)
      .where((eb) =>
        eb.or([
          ...(e.audience.length
            ? [eb.and([eb('collectionId', 'is', null), eb('ownerId', 'in', e.audience)])]
            : []),
          ...(e.collectionId ? [eb('collectionId', '=', e.collectionId)] : []),
        ]),
      )
      .orderBy('id')
      .execute()
  },

  /** Inserts deliveries; one per (endpoint, event) however often it is called. Returns the new ones. */
  async insertDeliveries(ex: Executor, rows: NewDelivery[]) {
    if (rows.length === 0) return []
    return ex
      .insertInto('webhookDeliveries')
      .values(
        rows.map((r) => ({
          id: r.id,
          endpointId: r.endpointId,
          eventId: r.eventId,
          eventType: r.eventType,
          body: r.body,
          maxAttempts: r.maxAttempts,
          nextAttemptAt: r.nextAttemptAt,
          createdAt: r.now,
          updatedAt: r.now,
        })),
      )
      .onConflict((oc) => oc.columns(['endpointId', 'eventId']).doNothing())
      .returning(['id'])
      .execute()
  },

  /** A delivery with what sending it needs: its endpoint's URL and sealed secret. */
  forSending(ex: Executor, id: string) {
    return ex
      .selectFrom('webhookDeliveries as d')
      .innerJoin('webhookEndpoints as e', 'e.id', 'd.endpointId')
      .select([
        'd.id',
        'd.endpointId',
        'd.eventId',
        'd.body',
        'd.status',
        'd.attempts',
        'd.maxAttempts',
        'e.url',
        'e.secretSealed',
        'e.previousSecretSealed',
        'e.previousSecretExpiresAt',
      ])
      .where('d.id', '=', id)
      .executeTakeFirst()
  },

  /**
   * Records attempt `attempt` of a pending delivery, once: nothing changes when that attempt was
   * recorded already (a job run twice) or the delivery is no longer pending.
   */
  async recordAttempt(ex: Executor, id: string, attempt: number, o: AttemptOutcome) {
    const res = await ex
      .updateTable('webhookDeliveries')
      .set({
        attempts: attempt,
        status: o.status,
        lastStatusCode: o.lastStatusCode,
        lastError: o.lastError,
        responseExcerpt: o.responseExcerpt,
        nextAttemptAt: o.nextAttemptAt,
        lastAttemptAt: o.now,
        deliveredAt: o.deliveredAt,
        updatedAt: o.now,
      })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('attempts', '=', attempt - 1)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** The delivery of one event to one endpoint. */
  deliveryOf(ex: Executor, endpointId: string, eventId: string) {
    return ex
      .selectFrom('webhookDeliveries')
      .select(deliveryColumns)
      .where('endpointId', '=', endpointId)
      .where('eventId', '=', eventId)
      .executeTakeFirst()
  },

  /** One page of an endpoint's deliveries (of one status), newest first, with the number of all. */
  pageDeliveries(ex: Executor, endpointId: string, status: string | undefined, p: PageRequest) {
    let q = ex.selectFrom('webhookDeliveries').where('endpointId', '=', endpointId)
    if (status) q = q.where('status', '=', status)
    return countedPage(q, (q) => q.select(deliveryColumns), { by: ['createdAt', 'id'], first: 'newest' }, p)
  },
}

export type EndpointRow = NonNullable<Awaited<ReturnType<typeof webhookRepo.getOwned>>>
export type DeliveryRow = Awaited<ReturnType<typeof webhookRepo.pageDeliveries>>['rows'][number]
