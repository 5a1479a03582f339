// Skill tags shared by profiles and collections. A submitted name becomes a tag with a normalised
// key (so "React", " react " and "REACT" are one tag), a colour derived from the key, and links to
// the seeded parent tags whose keywords hold the key. entryCount counts the profiles and
// collections that carry the tag and is kept exact by `swap`.
import { createHash } from 'node:crypto'
import type { Write } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { Kept } from '../../platform/kept.ts'
import { type TagRow, tagsRepo } from './tags-repo.ts'
import { TAXONOMY } from './taxonomy.ts'

export const MAX_TAGS = 30
export const MAX_TAG_LENGTH = 50

export type { TagRow }

export function tagKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/\s+/g, '-')
    .replace(/[^a-z0-9+#.-]/g, '')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
}

export function tagColor(key: string): string {
  const h = createHash('sha256').update(key).digest()
  const hue = (h.readUInt16BE(0) % 360) / 360
  const [s, l] = [0.55, 0.5]
  const f = (n: number) => {
    const k = (n + hue * 12) % 12
    const a = s * Math.min(l, 1 - l)
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0')
  }
  return `#${f(0)}${f(8)}${f(4)}`
}

/** Validates and normalises submitted tag names: unique by key, in submission order. */
export function normaliseTags(names: string[], path = '/tags'): Array<{ name: string; key: string }> {
  if (names.length > MAX_TAGS) throw errors.field(path, `at most ${MAX_TAGS} tags`)
  const seen = new Map<string, string>()
  for (const raw of names) {
    const name = raw.trim().replace(/\s+/g, ' ')
    const key = tagKey(name)
    if (!key || name.length > MAX_TAG_LENGTH)
      throw errors.field(
        path,
        `each tag must be 1 to ${MAX_TAG_LENGTH} characters of letters, digits or + # . -`,
      )
    if (!seen.has(key)) seen.set(key, name)
  }
  return [...seen].map(([key, name]) => ({ key, name }))
}

/** What never changes of a tag once it is created (only its entry count moves). */
export type TagLabel = Pick<TagRow, 'id' | 'name' | 'key' | 'color' | 'type'>
/**
 * Tag labels by id, kept in the process: no write ever changes them, so no process needs telling.
 * At most `max` are kept (the oldest stored goes first).
 */
export class TagLabels {
  readonly #kept: Kept<TagLabel>
  constructor(max: number) {
    this.#kept = new Kept(max)
  }

  get size() {
    return this.#kept.size
  }

  /** Keeps the labels of `rows`; answers them by id. */
  remember(rows: readonly TagLabel[]): Map<string, TagLabel> {
    const now = new Map<string, TagLabel>()
    for (const { id, name, key, color, type } of rows) {
      const label = { id, name, key, color, type }
      now.set(id, label)
      if (!this.#kept.has(id)) this.#kept.set(id, label)
    }
    return now
  }

  /** The labels of the tags of `ids` that exist, in that order; those not kept are read. */
  async of(ex: Executor, ids: readonly string[]): Promise<TagLabel[]> {
    // Those kept are taken before the others are read: keeping these may push out one of them.
    const found = new Map<string, TagLabel>()
    for (const id of ids) {
      const label = this.#kept.get(id)
      if (label) found.set(id, label)
    }
    const missing = [...new Set(ids.filter((id) => !found.has(id)))]
    if (missing.length > 0)
      for (const [id, label] of this.remember(await tagsRepo.byIds(ex, missing))) found.set(id, label)
    return ids.map((id) => found.get(id)).filter((t): t is TagLabel => t !== undefined)
  }
}

const labels = new TagLabels(50_000)

export const tagService = {
  /** Finds or creates the tags for `names` (child tags placed under matching parents). */
  async ensure(ex: Executor, names: string[], path = '/tags'): Promise<TagRow[]> {
    const wanted = normaliseTags(names, path)
    if (wanted.length === 0) return []
    const rows = wanted.map(({ key, name }) => ({
      id: newId(),
      name,
      key,
      color: tagColor(key),
      parentKeys: TAXONOMY.filter((p) => p.keywords.includes(key) || p.key === key).map((p) => p.key),
    }))
    // Inserted in key order, so two transactions saving overlapping new tags cannot deadlock.
    rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    const found = await tagsRepo.ensure(ex, rows)
    const byKey = new Map(found.map((t) => [t.key, t]))
    // A tag another transaction committed while the statement ran: read again (PostgreSQL only).
    const late = wanted.filter((w) => !byKey.has(w.key)).map((w) => w.key)
    if (late.length > 0) for (const t of await tagsRepo.byKeys(ex, late)) byKey.set(t.key, t)
    const tags = wanted.map((w) => byKey.get(w.key)!) as TagRow[]
    labels.remember(tags)
    return tags
  },

  /** The labels of the tags of `ids` that exist, in that order: read once per process. */
  labels(ex: Executor, ids: readonly string[]): Promise<TagLabel[]> {
    return labels.of(ex, ids)
  },

  /**
   * Moves entry counts when an owner's tag set changes from `before` to `after` (tag ids); the
   * statement makes other modules' `writes` too (src/db/compose.ts), sent ahead with or without
   * counts to move.
   */
  swap(ex: Executor, before: string[], after: string[], writes: readonly Write[] = []) {
    return tagService.swapMany(ex, [{ before, after }], writes)
  },

  /**
   * Moves entry counts for several owners' changes at once, in one statement (rows locked in id
   * order): saving or removing a family of collections never locks one tag set after another.
   */
  async swapMany(
    ex: Executor,
    changes: Array<{ before: string[]; after: string[] }>,
    writes: readonly Write[] = [],
  ) {
    const deltas = new Map<string, number>()
    const move = (id: string, by: number) => deltas.set(id, (deltas.get(id) ?? 0) + by)
    for (const { before, after } of changes) {
      for (const id of new Set(after)) if (!before.includes(id)) move(id, 1)
      for (const id of new Set(before)) if (!after.includes(id)) move(id, -1)
    }
    await tagsRepo.addEntries(ex, deltas, writes)
  },

  async byIds(ex: Executor, ids: string[]): Promise<TagRow[]> {
    if (ids.length === 0) return []
    const rows = await tagsRepo.byIds(ex, ids)
    const byId = new Map(rows.map((r) => [r.id, r]))
    return ids.map((id) => byId.get(id)).filter((r): r is (typeof rows)[number] => !!r) as TagRow[]
  },
}

/** The API's Tag object. */
export function toTag(row: TagRow) {
  return {
    _id: row.id,
    name: row.name,
    key: row.key,
    color: row.color,
    ...(row.isParent ? { description: row.description, icon: row.icon } : {}),
    categories: row.categories,
    isParent: row.isParent,
    type: row.type,
    entryCount: row.entryCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    __v: row.version,
  }
}
