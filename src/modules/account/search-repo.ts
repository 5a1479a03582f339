// The SQL of the people search (#40): filters over listed accounts, one page with each row's tags,
// achievements and the caller's bookmark, and the total (from the page's own scan for a search by
// words or tags, from the kept count without filters, counted beside the page otherwise).
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { listCount } from '../../db/list-counts.ts'
import { countedPage, newestIdsCounted, type PageRequest } from '../../db/reads.ts'
import { userLists } from './repo.ts'

export interface SearchFilters {
  callerId: string
  role?: string
  completenessMin?: number
  completenessMax?: number
  tagKeys?: string[]
  referredBy?: string
  tsquery?: string
}

/** The listed accounts a search may show the caller (a private profile only to its owner). */
function listed(ex: Executor, callerId: string) {
  return ex
    .selectFrom('users')
    .where('users.deletedAt', 'is', null)
    .where('users.emailVerified', '=', true)
    .where((eb) => eb.or([eb('users.isPrivate', '=', false), eb('users.id', '=', callerId)]))
}
type Listed = ReturnType<typeof listed>

/** The columns of a search row, with its tags, achievements and the caller's bookmark. */
function rowsOf(q: Listed, callerId: string) {
  // The caller's bookmark: one at most per user (unique), so the join adds no row to count.
  return q
    .leftJoin('bookmarks', (join) =>
      join
        .onRef('bookmarks.reference', '=', 'users.id')
        .on('bookmarks.userId', '=', callerId)
        .on('bookmarks.type', '=', 'user'),
    )
    .select([
      'users.id',
      'users.firstName',
      'users.lastName',
      'users.role',
      'users.type',
      'users.profile',
      'users.verified',
      'users.isPrivate',
      'users.score',
      'users.profileCompleteness',
      'users.socketStatus',
      'users.kyc',
      'users.kycStatus',
      'users.createdAt',
      'users.updatedAt',
      'bookmarks.id as bookmarkId',
      ...userLists(),
    ])
}

export const searchRepo = {
  /** The statement a search by words or tags runs for its page of ids and its total (for plans). */
  rankedQuery(ex: Executor, f: SearchFilters, p: PageRequest) {
    return rankedIds(ex, matching(ex, f), p)
  },

  /** One page of the people search, each row with its tags, achievements and the caller's bookmark. */
  async search(ex: Executor, f: SearchFilters, p: PageRequest) {
    const q = matching(ex, f)
    const order = { by: ['users.createdAt', 'users.id'], first: 'newest' } as const
    if (f.tsquery !== undefined || f.tagKeys?.length) return searchPage(ex, q, f.callerId, p)
    const filtered =
      f.role !== undefined ||
      f.completenessMin !== undefined ||
      f.completenessMax !== undefined ||
      f.referredBy !== undefined
    // No filter: the total is kept by the database instead of counted.
    return countedPage(
      q,
      (q) => rowsOf(q, f.callerId),
      order,
      p,
      filtered ? 'always' : () => listedCount(ex, f.callerId),
    )
  },
}

/** The listed accounts the caller may see that match every filter. */
function matching(ex: Executor, f: SearchFilters): Listed {
  let q = listed(ex, f.callerId)
  if (f.role !== undefined) q = q.where('users.role', '=', f.role)
  if (f.completenessMin !== undefined) q = q.where('users.profileCompleteness', '>=', f.completenessMin)
  if (f.completenessMax !== undefined) q = q.where('users.profileCompleteness', '<=', f.completenessMax)
  if (f.referredBy !== undefined) q = q.where('users.referredBy', '=', f.referredBy)
  // Any of the tags, by the keys each account keeps (GIN-indexed beside the search words).
  if (f.tagKeys?.length) q = q.where(sql<boolean>`users.tag_keys && ${sql.val(f.tagKeys)}::text[]`)
  if (f.tsquery !== undefined)
    q = q.where(sql<boolean>`users.search_vector @@ to_tsquery('simple', ${f.tsquery})`)
  return q
}

/** A search's page of ids, each row carrying the number of all matches (one scan of the matches). */
function rankedIds(ex: Executor, q: Listed, p: PageRequest) {
  return newestIdsCounted(ex, q.select(['users.id', 'users.createdAt']), {
    limit: p.limit,
    offset: (p.page - 1) * p.limit,
  })
}

/** All the listed accounts the caller may see: the public ones, and their own if it is private. */
async function listedCount(ex: Executor, callerId: string): Promise<number> {
  const [everyone, own] = await Promise.all([
    listCount(ex, 'people'),
    listed(ex, callerId)
      .where('users.id', '=', callerId)
      .where('users.isPrivate', '=', true)
      .select('users.id')
      .executeTakeFirst(),
  ])
  return everyone + (own ? 1 : 0)
}

/**
 * A search by words or tags finds every match through the indexes, so the page's ids and the
 * number of all matches come from that one scan (newestIdsCounted), then the page's rows by id.
 */
async function searchPage(ex: Executor, q: Listed, callerId: string, p: PageRequest) {
  const ranked = await rankedIds(ex, q, p).execute()
  if (ranked.length === 0) {
    // A page past the end has no row to carry the total.
    const total =
      p.page === 1
        ? 0
        : Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
    return { total, rows: [] }
  }
  const ids = ranked.map((r) => r.id)
  const rows = await rowsOf(listed(ex, callerId).where('users.id', 'in', ids), callerId).execute()
  const byId = new Map(rows.map((r) => [r.id, r]))
  return {
    total: Number(ranked[0]!.matches),
    rows: ids.map((id) => byId.get(id)).filter((r) => r !== undefined),
  }
}
