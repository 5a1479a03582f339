// The SQL of the people search (#36): filters over listed accounts, one page with each row's tags,
// achievements and the caller's bookmark in one query.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'
import { ACHIEVEMENT_JSON, type AchievementJson, TAG_JSON, type TagJson } from './repo.ts'

export interface SearchFilters {
  callerId: string
  role?: string
  completenessMin?: number
  completenessMax?: number
  tagKeys?: string[]
  referredBy?: string
  tsquery?: string
}

export const searchRepo = {
  /** One page of the people search, each row with its tags, achievements and the caller's bookmark. */
  async search(ex: Executor, f: SearchFilters, p: PageRequest) {
    let q = ex
      .selectFrom('users')
      .where('users.deletedAt', 'is', null)
      .where('users.emailVerified', '=', true)
      // A private profile is listed to no one but its owner.
      .where((eb) => eb.or([eb('users.isPrivate', '=', false), eb('users.id', '=', f.callerId)]))
    if (f.role !== undefined) q = q.where('users.role', '=', f.role)
    if (f.completenessMin !== undefined) q = q.where('users.profileCompleteness', '>=', f.completenessMin)
    if (f.completenessMax !== undefined) q = q.where('users.profileCompleteness', '<=', f.completenessMax)
    if (f.referredBy !== undefined) q = q.where('users.referredBy', '=', f.referredBy)
    // Any of the tags, by the keys each account keeps (GIN-indexed beside the search words).
    if (f.tagKeys?.length) q = q.where(sql<boolean>`users.tag_keys && ${sql.val(f.tagKeys)}::text[]`)
    if (f.tsquery !== undefined)
      q = q.where(sql<boolean>`users.search_vector @@ to_tsquery('simple', ${f.tsquery})`)

    // The caller's bookmark: one at most per user (unique), so the join adds no row to count.
    const withBookmark = q.leftJoin('bookmarks', (join) =>
      join
        .onRef('bookmarks.reference', '=', 'users.id')
        .on('bookmarks.userId', '=', f.callerId)
        .on('bookmarks.type', '=', 'user'),
    )
    return countedPage(
      withBookmark,
      (q) =>
        q.select([
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
          sql<TagJson[]>`(select coalesce(jsonb_agg(${TAG_JSON} order by ut.position), '[]'::jsonb)
            from user_tags ut join tags t on t.id = ut.tag_id where ut.user_id = users.id)`.as('tagList'),
          sql<
            AchievementJson[]
          >`(select coalesce(jsonb_agg(${ACHIEVEMENT_JSON} order by a.created_at, a.id), '[]'::jsonb)
            from achievements a where a.owner = users.id)`.as('achievementList'),
        ]),
      { by: ['users.createdAt', 'users.id'], first: 'newest' },
      p,
      // Words or tags find every match through the indexes: the page and the count share that scan.
      // Without them the count alone is cheaper (a plain scan) than counting beside the page.
      f.tsquery !== undefined || f.tagKeys?.length ? 'in-page' : 'always',
    )
  },
}
