// Disputes: the list with evidence and what is still in escrow, and the arbiter's split.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { envelope, IdParams, ok, PaginationQuery } from '../../../http/schemas.ts'
import { DecideBody, Dispute } from '../../work/types.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminDisputes } from '../disputes.ts'
import { CreatedRange, Page, Reason } from '../schemas.ts'
import { actorOf, adminErrors, createdRange, guardElevated, pageOf, security, tags } from './common.ts'

const DisputePage = Page(Dispute, 'AdminDisputePage')
const DisputeQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('settling'), Type.Literal('settled')]),
    ),
    ...CreatedRange,
  },
  { additionalProperties: false },
)
const AdminDecideBody = Type.Object(
  { ...DecideBody.properties, reason: Reason },
  {
    additionalProperties: false,
    examples: [
      {
        creatorAmount: 50,
        ownerAmount: 100,
        note: 'Half of the pages were delivered',
        reason: 'Ticket 88: evidence reviewed',
      },
    ],
  },
)

export const adminDisputeRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  disputes: AdminDisputes
}> = async (app, { access, disputes }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/disputes',
    {
      schema: {
        operationId: 'adminDisputes',
        summary:
          'Every dispute with its evidence and the USD still in escrow, by status and creation window (`from`, `to`), oldest first',
        tags,
        security,
        querystring: DisputeQuery,
        response: { 200: envelope(DisputePage), ...adminErrors() },
      },
    },
    async (req) => {
      const { page, limit } = pageOf(req.query)
      const { total, rows } = await disputes.list({
        page,
        limit,
        status: req.query.status,
        ...createdRange(req.query),
      })
      return ok({ page, pages: Math.ceil(total / limit), limit, total, data: rows })
    },
  )

  app.post(
    '/v1/admin/disputes/:id/decide',
    {
      schema: {
        operationId: 'adminDecideDispute',
        summary:
          "Decide a dispute (`:id` is the job's collection id): the split of what is still in escrow, paid to both parties through the escrow",
        tags,
        security,
        params: IdParams,
        body: AdminDecideBody,
        response: {
          200: envelope(Dispute, 'Dispute decided'),
          ...adminErrors({
            NOT_FOUND: 'no job or no dispute has this collection id',
            DISPUTE_SETTLED: 'the dispute is settled already',
            DISPUTE_SPLIT_MISMATCH: 'the two amounts do not add up to what is still in escrow',
            ESCROW_NOT_FUNDED: 'the escrow is not paid, and the talent’s share is not 0',
            SPLIT_EXCEEDS_ESCROW: 'the talent’s share is more than what remains in escrow',
          }),
        },
      },
    },
    async (req) => ok(await disputes.decide(actorOf(req), req.params.id, req.body), 'Dispute decided'),
  )
}
