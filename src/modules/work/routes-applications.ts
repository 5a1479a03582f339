// HTTP for applications to jobs: each route maps to one call of the application service.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  Application,
  ApplicationPage,
  ApplyBody,
  ListApplicationsQuery,
  MyApplicationsQuery,
} from './schemas.ts'
import type { ApplicationService } from './service-applications.ts'

export const applicationRoutes: FastifyPluginAsyncTypebox<{ applications: ApplicationService }> = async (
  app,
  { applications },
) => {
  const tags = ['applications']
  const security = bearer

  app.post(
    '/v1/collection/:id/applications',
    {
      schema: {
        operationId: 'applyToJob',
        summary: 'Apply to a public job',
        description:
          'A `message` (the cover letter) and optionally the price asked (`amount`, USD, more than 0). Not the job’s creator (403); a public top-level job (422 for a private one, which takes invites, or a child collection) without a talent (409 once it has one or is closed). One pending application per job and talent (409). Its id is added to the job’s `applications`.',
        tags,
        security,
        params: IdParams,
        body: ApplyBody,
        response: {
          200: envelope(Application, 'Application sent'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'a field fails its schema, a blank message, or an amount that is not more than 0 with at most two decimals',
            FORBIDDEN: { when: 'the caller created the job', message: 'You cannot apply to your own job' },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            APPLICATION_ALREADY_PENDING: {
              when: 'the caller has a pending application to the job',
              message: 'You already have a pending application to this job',
            },
            JOB_HAS_TALENT: 'the job has its talent',
            COLLECTION_NOT_OPEN: 'the job is no longer open',
            JOB_INVITE_ONLY: {
              when: 'a private job',
              message: 'A private job takes invites, not applications',
            },
            CHILD_COLLECTION_NOT_ALLOWED: 'a child collection',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await applications.apply(caller(req).userId, req.params.id, req.body), 'Application sent'),
  )

  app.get(
    '/v1/collection/:id/applications',
    {
      schema: {
        operationId: 'listJobApplications',
        summary: 'The applications to a job (its creator)',
        description: 'Newest first, `status` filters. The job’s creator only (403; 404 when hidden).',
        tags,
        security,
        params: IdParams,
        querystring: ListApplicationsQuery,
        response: {
          200: envelope(ApplicationPage, 'Applications'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is not the job’s creator',
              message: 'Only the job’s creator may list its applications',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await applications.listForJob(caller(req).userId, req.params.id, req.query), 'Applications'),
  )

  app.get(
    '/v1/applications',
    {
      schema: {
        operationId: 'listMyApplications',
        summary: 'The caller’s own applications',
        description: 'Newest first; `status` and `collection` filter.',
        tags,
        security,
        querystring: MyApplicationsQuery,
        response: {
          200: envelope(ApplicationPage, 'Applications'),
          ...guardedErrors({}),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await applications.mine(caller(req).userId, req.query), 'Applications'),
  )

  app.get(
    '/v1/applications/:id',
    {
      schema: {
        operationId: 'getApplication',
        summary: 'One application',
        description: 'For its applicant and the job’s creator; anyone else gets 404.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Application, 'Application'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'no such application, or the caller is neither its applicant nor the job’s creator',
              message: 'application not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await applications.get(caller(req).userId, req.params.id), 'Application'),
  )

  app.post(
    '/v1/applications/:id/accept',
    {
      schema: {
        operationId: 'acceptApplication',
        summary: 'Accept an application: the applicant is assigned to the job',
        description:
          'The job’s creator only (403 for the applicant, 404 for anyone else); 409 once it is not pending or the job has its talent. As accepting an invite: `pending` → `waiting` (`ongoing` when the escrow is already paid), `owners`, `inviteAccepted`; the job’s other pending applications and invites expire. The price asked becomes the job’s `paymentFee` while no escrow is linked to the job.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Application, 'Application accepted'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is the applicant',
              message: 'Only the job’s creator may accept an application',
            },
            NOT_FOUND: {
              when: 'no such application, or the caller is neither its applicant nor the job’s creator',
              message: 'application not found',
            },
            APPLICATION_ALREADY_ANSWERED: {
              when: 'the application is no longer pending',
              message: 'This application is already accepted',
            },
            JOB_HAS_TALENT: 'the job has its talent',
            JOB_ALREADY_IN_STATE: 'the job is already where the step leads',
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            JOB_STATE_MISMATCH: {
              when: 'the job is not pending',
              message: 'Cannot assign a talent: the job must be pending, and it is cancelled',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await applications.accept(caller(req).userId, req.params.id), 'Application accepted'),
  )

  app.post(
    '/v1/applications/:id/reject',
    {
      schema: {
        operationId: 'rejectApplication',
        summary: 'Reject an application',
        description:
          'The job’s creator only (403 for the applicant, 404 for anyone else); 409 once it is not pending.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Application, 'Application rejected'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller is the applicant',
              message: 'Only the job’s creator may reject an application',
            },
            NOT_FOUND: {
              when: 'no such application, or the caller is neither its applicant nor the job’s creator',
              message: 'application not found',
            },
            APPLICATION_ALREADY_ANSWERED: {
              when: 'the application is no longer pending',
              message: 'This application is already rejected',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await applications.reject(caller(req).userId, req.params.id), 'Application rejected'),
  )
}
