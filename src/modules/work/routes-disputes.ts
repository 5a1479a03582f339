// HTTP for disputes over a job: raise, read, propose a split, accept the other party's split.
// (An arbiter's decision is a service call for the admin API.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import { Dispute, RaiseDisputeBody, SplitBody } from './schemas.ts'
import type { DisputeService } from './service-disputes.ts'

export const disputeRoutes: FastifyPluginAsyncTypebox<{ disputes: DisputeService }> = async (
  app,
  { disputes },
) => {
  const tags = ['disputes']
  const security = bearer

  app.post(
    '/v1/collection/:id/dispute',
    {
      schema: {
        operationId: 'raiseDispute',
        summary: 'Raise a dispute on a job',
        description:
          'The creator or the talent (403 for anyone else; 404 when hidden) of an ongoing or delivered job whose escrow is paid and not fully released (422 otherwise), with a `reason` (the job’s `issue`) and optional `evidence` (the caller’s own uploads). The job becomes `disputed` and its escrow is frozen: no release, no refund, no cancellation, until the dispute ends by a split both parties accept or an arbiter decides. A job is disputed once (409 after).',
        tags,
        security,
        params: IdParams,
        body: RaiseDisputeBody,
        response: {
          200: envelope(Dispute, 'Dispute raised'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a blank reason, or evidence that is not one of the caller’s files',
            FORBIDDEN: {
              when: 'the caller is not a party of the job',
              message: 'Only the job’s creator or the job’s assigned talent may raise a dispute',
            },
            NOT_FOUND: {
              when: 'no such job, a deleted one, or someone else’s private one',
              message: 'collection not found',
            },
            JOB_ALREADY_IN_STATE: {
              when: 'the job is disputed already',
              message: 'This job is already disputed',
            },
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            JOB_STATE_MISMATCH: 'the job is not ongoing or delivered',
            DISPUTE_ESCROW_NOT_HELD: {
              when: 'its escrow is not paid, or fully released',
              message: 'Only a job whose escrow is paid and not fully released can be disputed',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await disputes.raise(caller(req).userId, req.params.id, req.body), 'Dispute raised'),
  )

  app.get(
    '/v1/collection/:id/dispute',
    {
      schema: {
        operationId: 'getDispute',
        summary: 'The dispute of a job',
        description:
          'For the job’s two parties (404 for anyone else, and for a job never disputed). `escrowAmount` is what a split must add up to.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(Dispute, 'Dispute'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'the job is hidden, the caller is not one of its parties, or it was never disputed',
              message: 'dispute not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await disputes.get(caller(req).userId, req.params.id), 'Dispute'),
  )

  app.post(
    '/v1/collection/:id/dispute/proposal',
    {
      schema: {
        operationId: 'proposeDisputeSplit',
        summary: 'Propose how to split the escrow',
        description:
          '`creatorAmount` (back to the creator) and `ownerAmount` (to the talent), USD that add up to what remains in escrow (422 otherwise). Either party; a new proposal replaces the last one. 409 once the dispute is settled.',
        tags,
        security,
        params: IdParams,
        body: SplitBody,
        response: {
          200: envelope(Dispute, 'Split proposed'),
          ...guardedErrors({
            VALIDATION_ERROR: 'an amount that is not USD with at most two decimals',
            NOT_FOUND: {
              when: 'the job is hidden, the caller is not one of its parties, or it was never disputed',
              message: 'dispute not found',
            },
            DISPUTE_SETTLED: { when: 'the dispute is settled', message: 'This dispute is already settled' },
            DISPUTE_SPLIT_MISMATCH: {
              when: 'the amounts do not add up to what remains in escrow',
              message: 'creatorAmount and ownerAmount must add up to what remains in escrow: 150 USD',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await disputes.propose(caller(req).userId, req.params.id, req.body), 'Split proposed'),
  )

  app.post(
    '/v1/collection/:id/dispute/accept',
    {
      schema: {
        operationId: 'acceptDisputeSplit',
        summary: 'Accept the other party’s split: the dispute is settled',
        description:
          'The party who did not make the proposal (403 for its author), naming its amounts (409 when the proposal differs; 422 when there is none). The job becomes `resolved`, `escrowReleased` records the split, and it is paid through the escrow’s normal legs: `ownerAmount` released to the talent (with its share of the fee), the rest returned to the creator’s wallet. Both parties may then review each other.',
        tags,
        security,
        params: IdParams,
        body: SplitBody,
        response: {
          200: envelope(Dispute, 'Dispute settled'),
          ...guardedErrors({
            VALIDATION_ERROR: 'an amount that is not USD with at most two decimals',
            FORBIDDEN: {
              when: 'the caller made the proposal',
              message: 'The other party accepts a proposal; you made this one',
            },
            NOT_FOUND: {
              when: 'the job is hidden, the caller is not one of its parties, or it was never disputed',
              message: 'dispute not found',
            },
            DISPUTE_PROPOSAL_MISMATCH: 'the proposal has other amounts',
            DISPUTE_SETTLED: { when: 'the dispute is settled', message: 'This dispute is already settled' },
            JOB_ALREADY_IN_STATE: 'the job is already where the step leads',
            JOB_CLOSED: 'the job is completed, resolved or cancelled',
            DISPUTE_NO_PROPOSAL: {
              when: 'nothing was proposed',
              message: 'There is no proposal to accept: propose a split first',
            },
            DISPUTE_SPLIT_MISMATCH: 'the amounts do not add up to what remains in escrow',
            JOB_STATE_MISMATCH: 'the job is not disputed',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await disputes.accept(caller(req).userId, req.params.id, req.body), 'Dispute settled'),
  )
}
