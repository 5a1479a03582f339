// Deep chain reorganisations: the deposits they took back, and reversing or keeping each.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, IdParams, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminReorgs } from '../reorgs.ts'
import { ReasonBody } from '../schemas.ts'
import { ReorgFinding, ReorgPage, ReorgQuery } from '../schemas-reorgs.ts'
import { actorOf, adminErrors, guardElevated, pageOf, security, tags } from './common.ts'

const NOT_FOUND = 'no reorg finding has this id'
const RESOLVED = 'the finding is reversed, kept or dropped already'

export const adminReorgRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  reorgs: AdminReorgs
}> = async (app, { access, reorgs }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/reorgs',
    {
      schema: {
        operationId: 'adminReorgs',
        summary:
          'Deposits a chain reorganisation deeper than the confirmations took back, newest first: what is held, what was already spent, and how each was resolved',
        tags,
        security,
        querystring: ReorgQuery,
        response: { 200: envelope(ReorgPage), ...adminErrors() },
      },
    },
    async (req) => ok(await reorgs.list({ ...pageOf(req.query), status: req.query.status })),
  )

  app.post(
    '/v1/admin/reorgs/:id/reverse',
    {
      schema: {
        operationId: 'adminReorgReverse',
        summary:
          "Reverse a vanished deposit's credit (audited): the hold goes back to the chain's clearing account, the part already spent is taken from the wallet's later funds or booked to the platform loss account, and the owner is notified",
        tags,
        security,
        params: IdParams,
        body: ReasonBody,
        response: {
          200: envelope(ReorgFinding, 'Deposit reversed'),
          ...adminErrors({ NOT_FOUND, FINDING_RESOLVED: RESOLVED }),
        },
      },
    },
    async (req) => ok(await reorgs.reverse(actorOf(req), req.params.id, req.body.reason), 'Deposit reversed'),
  )

  app.post(
    '/v1/admin/reorgs/:id/keep',
    {
      schema: {
        operationId: 'adminReorgKeep',
        summary:
          'Keep a deposit that is on the canonical chain again with its confirmations (checked on chain first; audited): its hold is released',
        tags,
        security,
        params: IdParams,
        body: ReasonBody,
        response: {
          200: envelope(ReorgFinding, 'Deposit kept'),
          ...adminErrors({
            NOT_FOUND,
            FINDING_RESOLVED: RESOLVED,
            DEPOSIT_RECORDED_AGAIN: 'the deposit was mined again and recorded anew by the watcher',
            DEPOSIT_NOT_CANONICAL: 'the deposit is not on the canonical chain with its confirmations',
          }),
        },
      },
    },
    async (req) => ok(await reorgs.keep(actorOf(req), req.params.id, req.body.reason), 'Deposit kept'),
  )
}
