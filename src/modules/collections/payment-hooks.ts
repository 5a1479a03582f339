// A collection's `paymentWebHook`: the URL its creator gives to be called when the collection's
// payment moves (funded, released). The webhooks feature keeps it as an endpoint of the collection
// with its own signing secret (shown once, when the URL is first set); collections only pass it on,
// in their own transaction, and show it to the creator.
import type { RawBuilder } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'

/** What collections need of the webhooks feature (built before them). */
export interface CollectionHooks {
  /**
   * sets (or with null removes) the collection's endpoint; a new endpoint's secret is returned.
   * `created`: the collection was created in this transaction, so it has no endpoint to look for.
   */
  set(
    tx: Tx,
    input: { collectionId: string; ownerId: string; url: string | null; path?: string; created?: boolean },
  ): Promise<{ secret: string | null }>
  /** the paymentWebHook URL of each collection that has one */
  urls(ex: Executor, collectionIds: readonly string[]): Promise<Map<string, string>>
  /** the same URL as SQL over a collection id expression, for a read to embed (null: none) */
  urlSql(collectionId: RawBuilder<unknown>): RawBuilder<string | null>
}

/**
 * Applies a paymentWebHook from a create or update body (undefined: unchanged; null or '':
 * removed); returns the fields the answer adds: the secret of a new endpoint, shown once.
 */
export async function applyPaymentHook(
  hooks: CollectionHooks | undefined,
  tx: Tx,
  collection: { id: string; creatorId: string; created?: boolean },
  value: string | null | undefined,
): Promise<{ paymentWebHookSecret?: string }> {
  if (value === undefined) return {}
  if (!hooks) throw errors.field('/paymentWebHook', 'Webhooks are not available')
  const { secret } = await hooks.set(tx, {
    collectionId: collection.id,
    ownerId: collection.creatorId,
    url: value === '' ? null : value,
    path: '/paymentWebHook',
    ...(collection.created ? { created: true } : {}),
  })
  return secret ? { paymentWebHookSecret: secret } : {}
}

/** The URLs of the collections the viewer created (nobody else sees them). */
export async function hooksOf(
  hooks: CollectionHooks | undefined,
  ex: Executor,
  viewerId: string,
  rows: readonly { id: string; creatorId: string }[],
): Promise<Map<string, string>> {
  const own = rows.filter((r) => r.creatorId === viewerId).map((r) => r.id)
  return hooks && own.length ? hooks.urls(ex, own) : new Map()
}

/** The `paymentWebHook` field of a collection's form, when it has one the viewer may see. */
export function hookField(urls: Map<string, string>, id: string): { paymentWebHook?: string } {
  const url = urls.get(id)
  return url === undefined ? {} : { paymentWebHook: url }
}
