// The operator's routes for identity verification under /v1/admin (admins with a fresh second
// factor, as every admin route): the queue by status, one session with its images, approve, reject.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, IdParams, ok } from '../../http/schemas.ts'
import { actorOf, adminErrors, guardElevated, pageOf, security } from '../admin/module.ts'
import { type AdminAccess, Page } from '../admin/types.ts'
import { AdminListQuery, AdminVerification, DecideBody } from './admin-schemas.ts'
import type { VerificationReview } from './review.ts'

const tags = ['admin']
const NONE = { when: 'no verification has this id', message: 'Verification not found' }
const DECIDE_ERRORS = {
  NOT_FOUND: NONE,
  VERIFICATION_NOT_SUBMITTED: {
    when: 'the session still waits for images (status created)',
    message: 'Only a submitted verification (every image in) can be decided',
  },
  VERIFICATION_NOT_OPEN: {
    when: 'the session was decided or deleted already',
    message: 'This verification was approved already',
  },
} as const

export const verificationAdminRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  review: VerificationReview
}> = async (app, { access, review }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/verifications',
    {
      schema: {
        operationId: 'adminVerifications',
        summary:
          'Identity verification sessions, oldest first; `status=submitted` is the queue waiting for a decision',
        tags,
        security,
        querystring: AdminListQuery,
        response: { 200: envelope(Page(AdminVerification, 'AdminVerificationPage')), ...adminErrors() },
      },
    },
    async (req) => {
      const { page, limit } = pageOf(req.query)
      const { total, rows } = await review.list({ page, limit, status: req.query.status })
      return ok({ page, pages: Math.ceil(total / limit), limit, total, data: rows })
    },
  )

  app.get(
    '/v1/admin/verifications/:id',
    {
      schema: {
        operationId: 'adminVerification',
        summary: 'One verification session with its images (signed URLs, valid 300 seconds)',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(AdminVerification), ...adminErrors({ NOT_FOUND: NONE }) },
      },
    },
    async (req) => ok(await review.get(req.params.id)),
  )

  app.post(
    '/v1/admin/verifications/:id/approve',
    {
      schema: {
        operationId: 'adminApproveVerification',
        summary:
          'Approves a submitted verification: the profile’s `kyc` becomes true and the user is notified',
        tags,
        security,
        params: IdParams,
        body: DecideBody,
        response: {
          200: envelope(AdminVerification, 'Verification approved'),
          ...adminErrors(DECIDE_ERRORS),
        },
      },
    },
    async (req) =>
      ok(await review.decide(actorOf(req), req.params.id, true, req.body.reason), 'Verification approved'),
  )

  app.post(
    '/v1/admin/verifications/:id/reject',
    {
      schema: {
        operationId: 'adminRejectVerification',
        summary: 'Rejects a submitted verification with a reason the user is shown (status `declined`)',
        tags,
        security,
        params: IdParams,
        body: DecideBody,
        response: {
          200: envelope(AdminVerification, 'Verification rejected'),
          ...adminErrors(DECIDE_ERRORS),
        },
      },
    },
    async (req) =>
      ok(await review.decide(actorOf(req), req.params.id, false, req.body.reason), 'Verification rejected'),
  )
}
