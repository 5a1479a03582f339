// Collection types: the values a collection's `type` may take. Seeded with the defaults
// (migration 0028), listed to every user, added, renamed and retired by admins. A retired type
// is refused for new collections and type changes; collections that have it keep it.
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { ReadCache } from '../../db/read-cache.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import {
  type CollectionTypeFilter,
  type CollectionTypeRow,
  collectionTypeRepo,
} from './collection-type-repo.ts'

export interface CollectionTypeQuery {
  page?: number
  limit?: number
  search?: string
  name?: string
  value?: string
}

function form(r: CollectionTypeRow) {
  return {
    _id: r.id,
    name: r.name,
    value: r.value,
    description: r.description,
    active: r.deletedAt === null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    updateAt: r.updatedAt,
    deletedAt: r.deletedAt,
  }
}

export type CollectionTypeForm = ReturnType<typeof form>

export class CollectionTypeService {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      /** the stored value of each active type by its lowercased value, dropped by any write to
       * `collection_types` (unknown values are not kept) */
      cache?: ReadCache<string>
    },
  ) {}

  /** Active types oldest first (the seeded defaults lead); `all` adds retired ones. */
  async list(q: CollectionTypeQuery, all = false) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const f: CollectionTypeFilter = {
      all,
      ...(q.search?.trim() ? { search: q.search.trim() } : {}),
      ...(q.name !== undefined ? { name: q.name.trim() } : {}),
      ...(q.value !== undefined ? { value: q.value.trim() } : {}),
    }
    const { total, rows } = await collectionTypeRepo.page(this.deps.db, f, { page, limit })
    return { data: rows.map(form), total, pages: Math.ceil(total / limit), page, limit }
  }

  async get(id: string, all = false) {
    const row = await collectionTypeRepo.get(this.deps.db, id, all)
    if (!row) throw errors.notFound('collection type')
    return form(row)
  }

  /**
   * The stored value of an active type matching `value` in any case (what a collection keeps);
   * 400 at `path` for an unknown or retired one.
   */
  async resolve(ex: Executor, value: string, path = '/type'): Promise<string> {
    const wanted = value.trim()
    const read = async () => {
      const row = await collectionTypeRepo.byValue(ex, wanted)
      if (!row || row.deletedAt)
        throw errors.field(path, `Unknown collection type "${wanted}"; GET /v1/collection-type lists them`)
      return row.value
    }
    // A type retired while a request that read it before runs is the same race as one retired
    // just after the request: the collection keeps the value it was given.
    const { cache } = this.deps
    return cache ? cache.get(wanted.toLowerCase(), read) : read()
  }

  /** Adds a type (admins); 409 when the value exists in any case, retired or not. */
  async create(tx: Tx, input: { name: string; value: string; description?: string }) {
    const name = input.name.trim()
    const value = input.value.trim()
    if (!name) throw errors.field('/name', 'must not be blank')
    const row = await collectionTypeRepo.insert(tx, {
      id: newId(),
      name,
      value,
      description: input.description?.trim() ?? '',
      now: this.deps.clock.now(),
    })
    if (!row)
      throw errors.named('COLLECTION_TYPE_EXISTS', `A collection type with the value "${value}" exists`)
    return form(row)
  }

  /** Renames, describes, retires (`active: false`) or restores a type (admins). */
  async update(tx: Tx, id: string, patch: { name?: string; description?: string; active?: boolean }) {
    const row = await collectionTypeRepo.get(tx, id, true)
    if (!row) throw errors.notFound('collection type')
    const now = this.deps.clock.now()
    const name = patch.name?.trim()
    if (name === '') throw errors.field('/name', 'must not be blank')
    const updated = await collectionTypeRepo.update(tx, id, {
      ...(name !== undefined ? { name } : {}),
      ...(patch.description !== undefined ? { description: patch.description.trim() } : {}),
      ...(patch.active !== undefined ? { deletedAt: patch.active ? null : (row.deletedAt ?? now) } : {}),
      now,
    })
    return { before: form(row), after: form(updated!) }
  }
}
