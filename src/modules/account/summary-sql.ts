// SQL other modules embed in their own reads, so that a list answers in one query instead of
// looking its accounts and tags up by id afterwards: a user's summary and a list of tags, as JSON,
// from a column of the reading query. The account module owns these tables; the keys are
// camelCase (nested JSON keys are not renamed by the CamelCasePlugin).
import { type RawBuilder, sql } from 'kysely'

/** The columns of a user summary (creator, receiver, bookmarked user), as userSummary reads them. */
export interface UserSummaryJson {
  id: string
  firstName: string
  lastName: string
  role: string
  type: string
  profile: unknown
  verified: boolean
  isPrivate: boolean
  score: number
  profileCompleteness: number
  socketStatus: string
}

/** What a tag is shown by inside another record. */
export interface TagSummaryJson {
  id: string
  name: string
  key: string
  color: string
  type: string
}

/** The summary of the account whose id is `id` (an expression of the reading query), or null. */
export function userSummaryJson(id: RawBuilder<unknown>): RawBuilder<UserSummaryJson | null> {
  return sql<UserSummaryJson | null>`(select jsonb_build_object(
      'id', u.id, 'firstName', u.first_name, 'lastName', u.last_name, 'role', u.role, 'type', u.type,
      'profile', u.profile, 'verified', u.verified, 'isPrivate', u.is_private, 'score', u.score,
      'profileCompleteness', u.profile_completeness, 'socketStatus', u.socket_status)
    from users u where u.id = ${id})`
}

/**
 * The tags whose ids `ids` (a text[] expression of the reading query) holds, in its order; ids of
 * tags that do not exist are left out.
 */
export function tagSummariesJson(ids: RawBuilder<unknown>): RawBuilder<TagSummaryJson[]> {
  // One primary-key lookup per id (a join would be planned as a scan of every tag).
  return sql<
    TagSummaryJson[]
  >`(select coalesce(jsonb_agg(x.tag order by x.n) filter (where x.tag is not null), '[]'::jsonb)
    from (select i.n, (select jsonb_build_object('id', t.id, 'name', t.name, 'key', t.key, 'color', t.color, 'type', t.type)
            from tags t where t.id = i.id::bpchar) as tag
          from unnest(${ids}) with ordinality as i(id, n)) x)`
}
