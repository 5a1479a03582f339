// The SQL of the people search (#40): filters over listed accounts, one page with each row's tags,
// achievements and the caller's bookmark, and the total (from the page's own scan for a search by
// words or tags, from the kept count without filters, both in the page's statement; counted beside
// the page otherwise).
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { listCountSql } from '../../db/list-counts.ts'
import { countedPage, newestIdsCounted, type PageRequest } from '../../db/reads.ts'
import type { DB } from '../../db/types.ts'
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
    if (!filtered) return browsePage(ex, q, f.callerId, p)
    return countedPage(q, (q) => rowsOf(q, f.callerId), order, p, 'always')
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
  const { rows } = await sql<{ n: string | number }>`select ${listedCountSql(callerId)} as n`.execute(ex)
  return Number(rows[0]?.n ?? 0)
}

/** The listed accounts the caller may see (listedCount) as SQL, for the page's statement. */
function listedCountSql(callerId: string): RawBuilder<string | number> {
  return sql<string | number>`(${listCountSql('people')} + (select count(*) from users u
    where u.id = ${callerId} and u.is_private and u.deleted_at is null and u.email_verified))`
}

type PageIds = { id: string; createdAt: Date; total: string | number | null }

/**
 * The rows of a page of ids (`total` on each), in one statement with them: each row with its tags,
 * achievements and the caller's bookmark, in the ids' order.
 */
function rowsOfPage(ex: Executor, ids: SelectQueryBuilder<DB, 'users', PageIds>, callerId: string) {
  // The page's rows are listed ones already: its ids come from `listed`.
  const byIds = ex.selectFrom(ids.as('p')).innerJoin('users', 'users.id', 'p.id') as unknown as Listed
  return rowsOf(byIds, callerId)
    .select(sql<string | number | null>`p.total`.as('total'))
    .orderBy(sql`p.created_at`, 'desc')
    .orderBy(sql`p.id`, 'desc')
}

/**
 * No filter: the newest page, with the total the database keeps (beside it, in the same statement);
 * a page past the end has no row to carry it, and reads it on its own.
 */
async function browsePage(ex: Executor, q: Listed, callerId: string, p: PageRequest) {
  const ids = q
    .select(['users.id', 'users.createdAt', listedCountSql(callerId).as('total')])
    .orderBy('users.createdAt', 'desc')
    .orderBy('users.id', 'desc')
    .limit(p.limit)
    .offset((p.page - 1) * p.limit)
  const rows = await rowsOfPage(ex, ids, callerId).execute()
  const total = rows[0]?.total != null ? Number(rows[0].total) : await listedCount(ex, callerId)
  return { total, rows }
}

/**
 * A search by words or tags finds every match through the indexes, so the page's ids and the
 * number of all matches come from that one scan (newestIdsCounted), with the page's rows joined
 * in the same statement.
 */
async function searchPage(ex: Executor, q: Listed, callerId: string, p: PageRequest) {
  const ranked = rankedIds(ex, q, p)
    .select(['m.createdAt', sql<string | number>`m.matches`.as('total')])
    .$castTo<PageIds>() as unknown as SelectQueryBuilder<DB, 'users', PageIds>
  const rows = await rowsOfPage(ex, ranked, callerId).execute()
  if (rows.length === 0) {
    // A page past the end has no row to carry the total.
    const total =
      p.page === 1
        ? 0
        : Number((await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n)
    return { total, rows: [] }
  }
  return { total: Number(rows[0]!.total), rows }
}
