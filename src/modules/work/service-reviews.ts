// Reviews (/v1/reviews): once a job is completed (or its dispute resolved) each party rates the
// other once, 1–5 stars with a text. The job's `ratings` and `score`, and the reviewed user's
// `score` and achievements (`review`, `five-star`) follow. Score = average rating × 20, rounded
// (0–100; 0 without reviews).
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { phaseOf, REVIEWABLE_PHASES } from '../collections/module.ts'
import { pageInfo, pageOf, roleOf, visibleJob, type WorkDeps } from './context.ts'
import { lookups, type ReviewRow, reviewForm } from './forms.ts'
import { audit } from './repo.ts'
import { type ReviewFilters, reviewRepo } from './repo-reviews.ts'
import type { AddReviewInput, ListReviewsQueryT } from './schemas.ts'

/** Average stars (1–5) → a score of 0–100. */
export const scoreOf = (average: number) => Math.round(average * 20)

export class ReviewService {
  constructor(private readonly deps: WorkDeps) {}

  async #form(row: ReviewRow) {
    const l = await lookups(
      this.deps.collections,
      this.deps.db,
      [row.ownerId, row.receiverId],
      [row.collectionId],
    )
    return reviewForm(row, l)
  }

  async add(userId: string, input: AddReviewInput) {
    const { deps } = this
    const text = input.review.trim()
    if (!text) throw errors.field('/review', 'must not be blank')
    const id = await inTransaction(deps.db, async (tx) => {
      const job = await visibleJob(deps, tx, input.collectionId, userId, true)
      const role = roleOf(job, userId)
      if (role === 'stranger')
        throw errors.forbidden('Only the job’s creator and its talent review each other')
      const phase = phaseOf(job)
      if (!REVIEWABLE_PHASES.includes(phase))
        throw errors.named(
          'REVIEW_NOT_OPEN',
          `A job is reviewed once it is completed or its dispute resolved; this one is ${phase}`,
        )
      const other = role === 'creator' ? job.receiverId! : job.creatorId
      if (input.receiver !== other) throw errors.field('/receiver', 'must be the other party of the job')
      if (await reviewRepo.byAuthor(tx, job.id, userId))
        throw errors.named('REVIEW_ALREADY_SENT', 'You have already reviewed this job')
      const now = deps.clock.now()
      const id = newId(now.getTime())
      await reviewRepo.insert(tx, {
        id,
        collectionId: job.id,
        ownerId: userId,
        receiverId: other,
        type: role === 'creator' ? 'talent' : 'creator',
        rating: input.rating,
        review: text,
        isPrivate: job.isPrivate,
        createdAt: now,
        updatedAt: now,
      })
      const ofJob = await reviewRepo.average(tx, { collectionId: job.id })
      await deps.collections.jobs.addRating(tx, job.id, id, scoreOf(ofJob.average))
      const ofUser = await reviewRepo.average(tx, { receiverId: other })
      await deps.accounts.recordReview(tx, other, { rating: input.rating, score: scoreOf(ofUser.average) })
      await deps.events.emit(tx, {
        type: 'review.left',
        actorId: userId,
        audience: [other],
        collectionId: job.id,
        isPublic: !job.isPrivate,
        data: { reviewId: id, collectionId: job.id, rating: input.rating },
      })
      await audit(tx, now, userId, 'work.reviewed', {
        reviewId: id,
        collectionId: job.id,
        receiverId: other,
        rating: input.rating,
      })
      return id
    })
    return this.#form((await reviewRepo.get(deps.db, id))!)
  }

  /** Public reviews, and those of private jobs the caller wrote or received; 404 otherwise. */
  async get(userId: string, id: string) {
    const row = await reviewRepo.get(this.deps.db, id)
    if (!row || (row.isPrivate && row.ownerId !== userId && row.receiverId !== userId))
      throw errors.notFound('review')
    return this.#form(row)
  }

  async list(userId: string, q: ListReviewsQueryT) {
    const { db, collections } = this.deps
    if (q.collectionId && q.data && q.collectionId !== q.data)
      throw errors.field('/data', '`data` and `collectionId` name different jobs')
    const collectionId = q.collectionId ?? q.data
    const f: ReviewFilters = {
      viewerId: userId,
      ...(q.receiver ? { receiverId: q.receiver } : {}),
      ...(q.owner ? { ownerId: q.owner } : {}),
      ...(collectionId ? { collectionId } : {}),
      ...(q.type ? { type: q.type } : {}),
      ...(q.rating !== undefined ? { rating: q.rating } : {}),
    }
    const p = pageOf(q)
    const { total, rows } = await reviewRepo.page(db, f, p)
    const l = await lookups(
      collections,
      db,
      rows.flatMap((r) => [r.ownerId, r.receiverId]),
      rows.map((r) => r.collectionId),
    )
    return { data: rows.map((r) => reviewForm(r, l)), count: total, ...pageInfo(p, total) }
  }
}
