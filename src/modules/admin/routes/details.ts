// The operator console's global search and detail pages: a user with their money and activity, a
// withdrawal, an escrow with its legs, one leg, a job, a dispute, and the chain's explorer link.
// Reads, for every operator role; unknown ids are 404 NOT_FOUND.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, IdParams, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminDetails } from '../details.ts'
import { AdminChain, AdminDispute, AdminEscrow, AdminJob, AdminUserOverview } from '../schemas-details.ts'
import { SearchQuery, SearchResult } from '../schemas-search.ts'
import { AdminEscrowLeg, AdminWithdrawal } from '../schemas-transfers.ts'
import type { AdminSearch } from '../search.ts'
import type { AdminTransfers } from '../transfers.ts'
import { adminErrors, guardElevated, security, tags } from './common.ts'

export const adminDetailRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  search: AdminSearch
  details: AdminDetails
  transfers: AdminTransfers
}> = async (app, { access, search, details, transfers }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/search',
    {
      schema: {
        operationId: 'adminSearch',
        summary: 'Search everything by a transaction hash, an address, an email, an id or a name',
        description:
          'The query’s shape decides what is looked up: a transaction hash (0x + 64 hex) finds the outgoing transfer one of whose transactions has it (a replacement too) with its withdrawal, and the deposits the watcher recorded in it with their owners; an address (0x + 40 hex) finds the owner of a custodial address, the account signing in with it, and the withdrawals and transfers sent to it; an email finds its account; a record id finds the user, transfer, withdrawal, escrow, escrow leg, job (collection) or dispute with it (a job id also finds its dispute); anything else searches accounts as the accounts list does. At most 10 hits of each lookup, each with the console route of its detail page.',
        tags,
        security,
        querystring: SearchQuery,
        response: { 200: envelope(SearchResult), ...adminErrors() },
      },
    },
    async (req) => ok(await search.search(req.query.q)),
  )

  app.get(
    '/v1/admin/chain',
    {
      schema: {
        operationId: 'adminChain',
        summary: 'The chain: its id, name and the link to a transaction on its explorer',
        tags,
        security,
        response: { 200: envelope(AdminChain), ...adminErrors() },
      },
    },
    async () => ok(details.chain()),
  )

  app.get(
    '/v1/admin/users/:id/overview',
    {
      schema: {
        operationId: 'adminUserOverview',
        summary:
          'One account with its custodial address, balances, newest deposits, escrows, jobs and live sessions',
        description:
          'Withdrawals: `GET /v1/admin/withdrawals?user=`; what operators did to the account: `GET /v1/admin/audit?target=`.',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(AdminUserOverview),
          ...adminErrors({ NOT_FOUND: 'no live account has this id' }),
        },
      },
    },
    async (req) => ok(await details.user(req.params.id)),
  )

  app.get(
    '/v1/admin/withdrawals/:id',
    {
      schema: {
        operationId: 'adminWithdrawal',
        summary: 'One withdrawal with its transfer’s state',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(AdminWithdrawal),
          ...adminErrors({ NOT_FOUND: 'no withdrawal has this id' }),
        },
      },
    },
    async (req) => ok(await transfers.withdrawal(req.params.id)),
  )

  app.get(
    '/v1/admin/escrow-legs/:id',
    {
      schema: {
        operationId: 'adminEscrowLeg',
        summary: 'One escrow payout leg with its transfer’s state',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(AdminEscrowLeg),
          ...adminErrors({ NOT_FOUND: 'no escrow leg has this id' }),
        },
      },
    },
    async (req) => ok(await transfers.leg(req.params.id)),
  )

  app.get(
    '/v1/admin/escrows/:id',
    {
      schema: {
        operationId: 'adminEscrow',
        summary: 'One escrow: its parties, amounts, state and payout legs',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(AdminEscrow), ...adminErrors({ NOT_FOUND: 'no escrow has this id' }) },
      },
    },
    async (req) => ok(await details.escrow(req.params.id)),
  )

  app.get(
    '/v1/admin/jobs/:id',
    {
      schema: {
        operationId: 'adminJob',
        summary: 'One job (a collection): description, parties, delivery, attachments and its dispute',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(AdminJob), ...adminErrors({ NOT_FOUND: 'no live job has this id' }) },
      },
    },
    async (req) => ok(await details.job(req.params.id)),
  )

  app.get(
    '/v1/admin/disputes/:id',
    {
      schema: {
        operationId: 'adminDispute',
        summary: 'One dispute (by its id or its job’s id): reason, evidence, proposal, decision, and the job',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(AdminDispute),
          ...adminErrors({ NOT_FOUND: 'no dispute has this id, nor a job with this id a dispute' }),
        },
      },
    },
    async (req) => ok(await details.dispute(req.params.id)),
  )
}
