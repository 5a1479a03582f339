// The only SQL on reviews.
import { type ExpressionBuilder, type Insertable, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'
import type { ReviewsTable } from '../../db/tables/work.ts'
import type { DB } from '../../db/types.ts'

export interface ReviewFilters {
  /** who reads: public reviews, and the private-job reviews they wrote or received */
  viewerId: string
  receiverId?: string
  ownerId?: string
  collectionId?: string
  type?: 'talent' | 'creator'
  rating?: number
}

function reviewWhere(f: ReviewFilters) {
  return (eb: ExpressionBuilder<DB, 'reviews'>) => {
    const conds = [
      eb.or([eb('isPrivate', '=', false), eb('ownerId', '=', f.viewerId), eb('receiverId', '=', f.viewerId)]),
    ]
    if (f.receiverId) conds.push(eb('receiverId', '=', f.receiverId))
    if (f.ownerId) conds.push(eb('ownerId', '=', f.ownerId))
    if (f.collectionId) conds.push(eb('collectionId', '=', f.collectionId))
    if (f.type) conds.push(eb('type', '=', f.type))
    if (f.rating !== undefined) conds.push(eb('rating', '=', f.rating))
    return eb.and(conds)
  }
}

export const reviewRepo = {
  async insert(ex: Executor, row: Insertable<ReviewsTable>) {
    await ex.insertInto('reviews').values(row).execute()
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('reviews').selectAll().where('id', '=', id).executeTakeFirst()
  },

  byAuthor(ex: Executor, collectionId: string, ownerId: string) {
    return ex
      .selectFrom('reviews')
      .select('id')
      .where('collectionId', '=', collectionId)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
  },

  /** The average rating (and count) of a job's reviews, or of the reviews a user received. */
  async average(ex: Executor, by: { collectionId: string } | { receiverId: string }) {
    const row = await ex
      .selectFrom('reviews')
      .select([sql<string | null>`avg(rating)`.as('avg'), (eb) => eb.fn.countAll<number>().as('n')])
      .where(
        'collectionId' in by ? 'collectionId' : 'receiverId',
        '=',
        'collectionId' in by ? by.collectionId : by.receiverId,
      )
      .executeTakeFirstOrThrow()
    return { average: row.avg === null ? 0 : Number(row.avg), count: Number(row.n) }
  },

  /** One page, newest first, with the number of all that match (counted only when needed). */
  page(ex: Executor, f: ReviewFilters, p: PageRequest) {
    return countedPage(
      ex.selectFrom('reviews').where(reviewWhere(f)),
      (q) => q.selectAll(),
      { by: ['createdAt', 'id'], first: 'newest' },
      p,
      'when-needed',
    )
  },
}
