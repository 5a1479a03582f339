// Feeds: the activity stream, read straight from the domain events. Public entries are seen by
// everyone, the others by the people they concern (actor and audience); each viewer dismisses
// entries one by one or all up to now, for themselves only.
import type { Db, Executor } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { EventData, EventService, EventType } from '../events/types.ts'
import { eventTypesOf, FEED_EVENT_TYPES, FEED_OF, type FeedType, POSTED } from './catalog.ts'
import { type FeedRow, feedRepo } from './repo.ts'

/** A new entry (the SDK's CreateFeedDto). */
export interface NewFeed {
  title: string
  description: string
  type: FeedType
  data: string
  isPublic: boolean
  owners?: string[] | string
}

/** Who is a live account (the collections service's people lookup). */
export interface PeopleLookup {
  people(ex: Executor, ids: readonly string[]): Promise<Map<string, { live: boolean }>>
}

export interface FeedQuery {
  page?: number
  limit?: number
  type?: FeedType
  owner?: string
  isOwner?: boolean
  isPublic?: boolean
}

export class FeedService {
  constructor(private readonly deps: { db: Db; clock: Clock; events: EventService; people: PeopleLookup }) {}

  /**
   * POST /v1/feeds/: an entry of the caller's own. `owners` (live accounts; the caller when none)
   * are the users it concerns: a private entry is seen by them and the caller only.
   */
  async create(userId: string, input: NewFeed) {
    const title = input.title.trim()
    const description = input.description.trim()
    if (!title) throw errors.field('/title', 'must not be blank')
    if (!description) throw errors.field('/description', 'must not be blank')
    const given =
      input.owners === undefined ? [] : Array.isArray(input.owners) ? input.owners : [input.owners]
    const owners = [...new Set(given)]
    const id = await inTransaction(this.deps.db, async (tx) => {
      if (owners.length) {
        const found = await this.deps.people.people(tx, owners)
        const unknown = owners.findIndex((o) => !found.get(o)?.live)
        if (unknown >= 0) throw errors.field(`/owners/${unknown}`, 'unknown user')
      }
      const event = await this.deps.events.emit(tx, {
        type: 'feed.posted',
        actorId: userId,
        audience: owners.length ? owners : [userId],
        isPublic: input.isPublic,
        data: { feedType: input.type, title, description, data: input.data.trim() },
      })
      return event!.id
    })
    return this.get(userId, id)
  }

  async list(viewerId: string, q: FeedQuery) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const filter = {
      viewerId,
      eventTypes: q.type ? eventTypesOf(q.type) : FEED_EVENT_TYPES,
      ...(q.type ? { postedType: q.type } : {}),
      own: q.isOwner === true,
      ...(q.isPublic !== undefined ? { isPublic: q.isPublic } : {}),
      ...(q.owner ? { ownerId: q.owner } : {}),
    }
    const { total, rows } = await feedRepo.page(this.deps.db, filter, { page, limit })
    return { data: rows.map((r) => form(r, false)), total, pages: Math.ceil(total / limit), page, limit }
  }

  async get(viewerId: string, id: string) {
    const row = await this.#visible(viewerId, id)
    return form(row, await feedRepo.dismissed(this.deps.db, viewerId, id, row.createdAt))
  }

  /** The entries of `ids` the viewer may see, in their API form, by id. */
  async visibleForms(viewerId: string, ids: string[]) {
    const rows = await feedRepo.getMany(this.deps.db, viewerId, [...new Set(ids)], FEED_EVENT_TYPES)
    return new Map(rows.map((r) => [r.id, form(r, r.closed)]))
  }

  async dismiss(viewerId: string, id: string) {
    const row = await this.#visible(viewerId, id)
    await feedRepo.dismiss(this.deps.db, viewerId, row.id, this.deps.clock.now())
    return form(row, true)
  }

  async dismissAll(viewerId: string) {
    await feedRepo.dismissAll(this.deps.db, viewerId, this.deps.clock.now())
    return {}
  }

  async #visible(viewerId: string, id: string) {
    const row = await feedRepo.get(this.deps.db, viewerId, id, FEED_EVENT_TYPES)
    if (!row) throw errors.notFound('feed')
    return row
  }
}

function form(r: FeedRow, closed: boolean) {
  const data = r.data as { collectionId?: string; userId?: string } & Partial<EventData['feed.posted']>
  const f =
    r.type === POSTED
      ? { type: data.feedType as FeedType, title: data.title ?? '', description: data.description ?? '' }
      : FEED_OF[r.type as EventType]!
  return {
    _id: r.id,
    creator: r.actorId ?? '',
    owner: r.audience[0] ?? r.actorId ?? '',
    owners: r.audience,
    data: r.collectionId ?? data.collectionId ?? data.userId ?? data.data ?? '',
    title: f.title,
    description: f.description,
    type: f.type,
    isPublic: r.isPublic,
    closed,
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
  }
}
