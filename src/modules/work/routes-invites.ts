// HTTP for invites (/v1/invite, the client SDK's InviteModule): each route maps to one call of
// the invite service.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { Invite, InvitePage, ListInvitesQuery, SendInviteBody } from './schemas.ts'
import type { InviteService } from './service-invites.ts'

export const inviteRoutes: FastifyPluginAsyncTypebox<{ invites: InviteService }> = async (
  app,
  { invites },
) => {
  const tags = ['invites']
  const security = bearer

  app.post(
    '/v1/invite',
    {
      schema: {
        operationId: 'sendInvite',
        summary: 'Invite a talent to a job',
        description:
          'The job’s creator only (403; 404 when the job is hidden from the caller). The job is a top-level collection (422 for a child collection) without a talent yet (409 once it has one or is completed, resolved or cancelled). `recipient` is a live account other than the caller (404 unknown, 400 yourself). At most one pending invite per job and talent (409). The invitee may see the job even when it is private while the invite is pending. Answers the invite (`IInviteDto`).',
        tags,
        security,
        body: SendInviteBody,
        response: {
          200: envelope(Invite, 'Invite sent'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or the recipient is the caller',
            FORBIDDEN: {
              when: 'the caller is not the job’s creator',
              message: 'Only the job’s creator may invite talents to it',
            },
            NOT_FOUND: {
              when: 'no such job (or it is hidden), or no such recipient',
              message: 'recipient not found',
            },
            INVITE_ALREADY_PENDING: {
              when: 'the talent already has a pending invite to the job',
              message: 'This talent already has a pending invite to this job',
            },
            JOB_HAS_TALENT: 'the job has its talent',
            COLLECTION_NOT_OPEN: 'the job is no longer open',
            CHILD_COLLECTION_NOT_ALLOWED: {
              when: 'the collection is a child collection',
              message: 'Invites go to the job itself, not to one of its child collections',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await invites.send(caller(req).userId, req.body), 'Invite sent'),
  )

  app.get(
    '/v1/invite',
    {
      schema: {
        operationId: 'listInvites',
        summary: 'The caller’s invites, sent and received',
        description:
          'Newest first; `role` keeps only those sent or received, `status` and `collection` (or the SDK’s `data`) filter. Pages as the other lists (`page`, `limit` 12 by default, at most 100).',
        tags,
        security,
        querystring: ListInvitesQuery,
        response: {
          200: envelope(InvitePage, 'Invites'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'an unknown or malformed query parameter, or `data` and `collection` naming different jobs',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await invites.list(caller(req).userId, req.query), 'Invites'),
  )

  app.get(
    '/v1/invite/:id',
    {
      schema: {
        operationId: 'getInvite',
        summary: 'One invite',
        description: 'Its sender or receiver only; anyone else gets 404.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Invite, 'Invite'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'no such invite, or the caller neither sent nor received it',
              message: 'invite not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await invites.get(caller(req).userId, req.params.id), 'Invite'),
  )

  app.post(
    '/v1/invite/:id/accept',
    {
      schema: {
        operationId: 'acceptInvite',
        summary: 'Accept an invite: the talent is assigned to the job',
        description:
          'The invited talent only (403 for the sender, 404 for anyone else); 409 once the invite is no longer pending or the job has its talent. The job moves from `pending` to `waiting` (to `ongoing` when its escrow is already paid), `owners` names the talent, `inviteAccepted` is true, and the job’s other pending invites and applications expire.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Invite, 'Invite accepted'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller sent the invite',
              message: 'Only the invited talent may accept this invite',
            },
            NOT_FOUND: {
              when: 'no such invite, or the caller neither sent nor received it',
              message: 'invite not found',
            },
            INVITE_ALREADY_ANSWERED: {
              when: 'the invite is no longer pending',
              message: 'This invite is already accepted',
            },
            JOB_HAS_TALENT: 'the job has its talent',
            JOB_ALREADY_IN_STATE: 'the job is already where the step leads',
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            JOB_STATE_MISMATCH: {
              when: 'the job is not pending',
              message: 'Cannot assign a talent: the job must be pending, and it is disputed',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await invites.accept(caller(req).userId, req.params.id), 'Invite accepted'),
  )

  app.post(
    '/v1/invite/:id/decline',
    {
      schema: {
        operationId: 'declineInvite',
        summary: 'Decline an invite',
        description:
          'The invited talent only (403 for the sender, 404 for anyone else); 409 once it is not pending. The invite becomes `rejected`; a private job is hidden from the talent again.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Invite, 'Invite declined'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller sent the invite',
              message: 'Only the invited talent may decline this invite',
            },
            NOT_FOUND: {
              when: 'no such invite, or the caller neither sent nor received it',
              message: 'invite not found',
            },
            INVITE_ALREADY_ANSWERED: {
              when: 'the invite is no longer pending',
              message: 'This invite is already cancelled',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await invites.close(caller(req).userId, req.params.id, 'rejected'), 'Invite declined'),
  )

  app.post(
    '/v1/invite/:id/cancel',
    {
      schema: {
        operationId: 'cancelInvite',
        summary: 'Cancel a pending invite',
        description:
          'Its sender only (403 for the invitee, 404 for anyone else); 409 once it is not pending. The invite becomes `cancelled` (with `deletedAt`); a private job is hidden from the talent again. The SDK calls it with a doubled slash (`/v1/invite//{id}/cancel`), which is the same path.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Invite, 'Invite cancelled'),
          ...guardedErrors({
            FORBIDDEN: {
              when: 'the caller received the invite',
              message: 'Only the sender may cancel this invite',
            },
            NOT_FOUND: {
              when: 'no such invite, or the caller neither sent nor received it',
              message: 'invite not found',
            },
            INVITE_ALREADY_ANSWERED: {
              when: 'the invite is no longer pending',
              message: 'This invite is already rejected',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await invites.close(caller(req).userId, req.params.id, 'cancelled'), 'Invite cancelled'),
  )
}
