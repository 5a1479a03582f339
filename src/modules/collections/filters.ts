// The list query of #27 turned into repository filters: the price range, the full-text query
// and the tag keys are parsed and checked here (bad input is 400, never a database error).
import { errors } from '../../http/errors.ts'
import { usdTextToCents } from '../../platform/money/index.ts'
import { tagKey } from '../account/module.ts'
import { words } from './forms.ts'
import type { ListCollectionsQueryT } from './input-schemas.ts'
import type { ListFilters } from './list-repo.ts'

const MAX_SEARCH_WORDS = 8
const MAX_FILTER_TAGS = 20

/** Parses a `min-max` price range in USD (either side may be empty, not both). */
export function parsePrice(price: string): { min?: string; max?: string } {
  const m = /^(\d{1,12}(?:\.\d{1,2})?)?-(\d{1,12}(?:\.\d{1,2})?)?$/.exec(price.trim())
  if (!m || (m[1] === undefined && m[2] === undefined))
    throw errors.field(
      '/price',
      'price must be `min-max` in USD with at most two decimals; one side may be empty (`100-`, `-500`)',
    )
  if (m[1] !== undefined && m[2] !== undefined && usdTextToCents(m[1])! > usdTextToCents(m[2])!)
    throw errors.field('/price', 'the minimum price is above the maximum')
  return { ...(m[1] !== undefined ? { min: m[1] } : {}), ...(m[2] !== undefined ? { max: m[2] } : {}) }
}

/** Prefix match of every word: `react nat` → `react:* & nat:*`. Words only, so it never fails to parse. */
export function searchQuery(search: string): string | undefined {
  const ws = words(search).slice(0, MAX_SEARCH_WORDS)
  return ws.length ? ws.map((w) => `${w}:*`).join(' & ') : undefined
}

export function listFilters(q: ListCollectionsQueryT): ListFilters {
  const filters: ListFilters = {}
  if (q.type !== undefined) filters.type = q.type
  if (q.status !== undefined) filters.status = q.status
  if (q.creatorId !== undefined) filters.creatorId = q.creatorId
  if (q.isPrivate !== undefined) filters.isPrivate = q.isPrivate
  if (q.price !== undefined) {
    const { min, max } = parsePrice(q.price)
    if (min !== undefined) filters.priceMin = min
    if (max !== undefined) filters.priceMax = max
  }
  if (q.search !== undefined) {
    const ts = searchQuery(q.search)
    if (ts) filters.tsQuery = ts
  }
  if (q.tags !== undefined) {
    const keys = [...new Set(q.tags.split(',').map(tagKey).filter(Boolean))]
    if (keys.length > MAX_FILTER_TAGS) throw errors.field('/tags', `at most ${MAX_FILTER_TAGS} tags`)
    if (keys.length) filters.tagKeys = keys
  }
  if (q['meta.name'] !== undefined) filters.metaName = q['meta.name']
  if (q.escrowPaid !== undefined) filters.escrowPaid = q.escrowPaid
  if (q.parent !== undefined) filters.parentId = q.parent
  return filters
}
