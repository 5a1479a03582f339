// Reconciliation: the report (latest runs, halted coins), a run now, and halting or resuming a coin.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminReconciliation } from '../reconciliation.ts'
import { ReasonBody } from '../schemas.ts'
import { CoinHalt, CoinParams, ReconciliationReport, ReportQuery, RunNowResult } from '../schemas-money.ts'
import { actorOf, adminErrors, guardElevated, security, tags } from './common.ts'

export const adminReconciliationRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  reconciliation: AdminReconciliation
}> = async (app, { access, reconciliation }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/reconciliation',
    {
      schema: {
        operationId: 'adminReconciliation',
        summary: 'The latest reconciliation runs (per coin: ledger, chain, drift) and the halted coins',
        tags,
        security,
        querystring: ReportQuery,
        response: { 200: envelope(ReconciliationReport), ...adminErrors() },
      },
    },
    async (req) => ok(await reconciliation.report(req.query.limit ?? 10)),
  )

  app.post(
    '/v1/admin/reconciliation/run',
    {
      schema: {
        operationId: 'adminReconcileNow',
        summary: 'Run reconciliation now; a coin that does not match is halted',
        tags,
        security,
        body: ReasonBody,
        response: { 200: envelope(RunNowResult, 'Reconciliation ran'), ...adminErrors() },
      },
    },
    async (req) => ok(await reconciliation.run(actorOf(req), req.body.reason), 'Reconciliation ran'),
  )

  app.post(
    '/v1/admin/coins/:coin/halt',
    {
      schema: {
        operationId: 'adminHaltCoin',
        summary: 'Halt a coin by hand: nothing is credited or sent in it until it is resumed',
        tags,
        security,
        params: CoinParams,
        body: ReasonBody,
        response: {
          200: envelope(CoinHalt, 'Coin halted'),
          ...adminErrors({
            VALIDATION_ERROR: 'an unknown coin',
            COIN_ALREADY_IN_STATE: 'the coin is halted already',
          }),
        },
      },
    },
    async (req) =>
      ok(await reconciliation.halt(actorOf(req), req.params.coin, req.body.reason), 'Coin halted'),
  )

  app.post(
    '/v1/admin/coins/:coin/resume',
    {
      schema: {
        operationId: 'adminResumeCoin',
        summary: 'Resume a halted coin: crediting and sending go on',
        tags,
        security,
        params: CoinParams,
        body: ReasonBody,
        response: {
          200: envelope(CoinHalt, 'Coin resumed'),
          ...adminErrors({ VALIDATION_ERROR: 'an unknown coin', NOT_FOUND: 'the coin is not halted' }),
        },
      },
    },
    async (req) =>
      ok(await reconciliation.resume(actorOf(req), req.params.coin, req.body.reason), 'Coin resumed'),
  )
}
