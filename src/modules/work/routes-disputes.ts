// HTTP for disputes over a job: raise, read, propose a split, accept the other party's split.
// (An arbiter's decision is a service call for the admin API.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { commonErrors, envelope, IdParams, ok } from '../../http/schemas.ts'
import { Dispute, RaiseDisputeBody, SplitBody } from './schemas.ts'
import type { DisputeService } from './service-disputes.ts'

export const disputeRoutes: FastifyPluginAsyncTypebox<{ disputes: DisputeService }> = async (
  app,
  { disputes },
) => {
  const tags = ['disputes']
  const security = [{ bearer: [] }]

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
        response: { 200: envelope(Dispute), ...commonErrors },
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
        response: { 200: envelope(Dispute), ...commonErrors },
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
        response: { 200: envelope(Dispute), ...commonErrors },
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
        response: { 200: envelope(Dispute), ...commonErrors },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await disputes.accept(caller(req).userId, req.params.id, req.body), 'Dispute settled'),
  )
}
