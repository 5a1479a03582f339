// HTTP for reviews (/v1/reviews, the client SDK's ReviewModule).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { AddReviewBody, ListReviewsQuery, Review, ReviewPage } from './schemas.ts'
import type { ReviewService } from './service-reviews.ts'

export const reviewRoutes: FastifyPluginAsyncTypebox<{ reviews: ReviewService }> = async (
  app,
  { reviews },
) => {
  const tags = ['reviews']
  const security = bearer

  app.post(
    '/v1/reviews',
    {
      schema: {
        operationId: 'addReview',
        summary: 'Review the other party of a job',
        description:
          'The creator reviews the talent and the talent the creator (`receiver`: the other party, 400 otherwise; 403 for anyone else, 404 when hidden), once per job (409), once it is completed or its dispute resolved (422 before). `rating` is whole stars 1–5, `review` a text. The job’s `ratings` and `score`, and the receiver’s `score` and achievements follow: score = average rating × 20, rounded (0–100); `review` counts the reviews received (`value`: their stars), `five-star` the five-star ones.',
        tags,
        security,
        body: AddReviewBody,
        response: {
          200: envelope(Review, 'Review added'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, a blank review, or a receiver who is not the other party',
            FORBIDDEN: {
              when: 'the caller is not a party of the job',
              message: 'Only the job’s creator and its talent review each other',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            REVIEW_ALREADY_SENT: {
              when: 'the caller reviewed this job already',
              message: 'You have already reviewed this job',
            },
            REVIEW_NOT_OPEN: {
              when: 'the job is not completed or resolved',
              message: 'A job is reviewed once it is completed or its dispute resolved; this one is ongoing',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await reviews.add(caller(req).userId, req.body), 'Review added'),
  )

  app.get(
    '/v1/reviews',
    {
      schema: {
        operationId: 'listReviews',
        summary: 'Reviews, newest first',
        description:
          'Reviews of public jobs, and those of private jobs the caller wrote or received. Filters: `receiver`, `owner`, `collectionId` (or the SDK’s `data`), `type`, `rating`. `count` (the SDK’s name) and `total` are the number of matches.',
        tags,
        security,
        querystring: ListReviewsQuery,
        response: {
          200: envelope(ReviewPage, 'Reviews'),
          ...guardedErrors({ VALIDATION_ERROR: 'an unknown or malformed query parameter' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await reviews.list(caller(req).userId, req.query), 'Reviews'),
  )

  app.get(
    '/v1/reviews/:id',
    {
      schema: {
        operationId: 'getReview',
        summary: 'One review',
        description: 'A review of a private job is 404 for anyone but its author and receiver.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Review, 'Review'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'no such review, or one of a private job the caller neither wrote nor received',
              message: 'review not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await reviews.get(caller(req).userId, req.params.id), 'Review'),
  )
}
