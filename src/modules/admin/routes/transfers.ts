// Money on its way out: outgoing transfers, withdrawals and escrow payout legs, with the actions
// retry (run now / send a failed leg again), replace (higher fees, same nonce) and cancel (refund).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { type TSchema, Type } from 'typebox'
import { type ErrorCases, envelope, IdParams, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminActor } from '../audit.ts'
import { CancelBody, Page, ReasonBody } from '../schemas.ts'
import {
  AdminEscrowLeg,
  AdminTransfer,
  AdminTransferDetail,
  AdminWithdrawal,
  LegQuery,
  TransferQuery,
  WithdrawalQuery,
} from '../schemas-transfers.ts'
import type { AdminTransfers, OperatorNote, TransferAction } from '../transfers.ts'
import { actorOf, adminErrors, createdRange, guardElevated, pageOf, security, tags } from './common.ts'

const TransferPage = Page(AdminTransfer, 'AdminTransferPage')
const WithdrawalPage = Page(AdminWithdrawal, 'AdminWithdrawalPage')
const LegPage = Page(AdminEscrowLeg, 'AdminEscrowLegPage')
const TxHash = Type.Optional(Type.String({ description: 'replace: the replacement transaction' }))

const WHAT: Record<TransferAction, { summary: string; conflicts: ErrorCases; message: string }> = {
  retry: {
    summary: 'run now, without waiting for its backoff',
    conflicts: {
      TRANSFER_NOT_OPEN:
        'it settled already (a withdrawal that failed for good was refunded), or has no transfer yet',
    },
    message: 'Queued to run now',
  },
  replace: {
    summary: 'replace its pending transaction now: same nonce, fees at least 12.5 % higher',
    conflicts: {
      TRANSFER_NOT_OPEN: 'not signed yet, or settled (or replaced) already',
      TRANSFER_NOT_STUCK: 'its nonce is taken already, or an earlier nonce is pending',
      HALTED_COIN_REFUSED: 'the coin is halted',
      TRANSFER_REPLACE_LIMIT: 'replacements used up, or the fee cap reached',
      TRANSFER_AWAITS_GAS: 'a gas top-up is needed first',
    },
    message: 'Replaced',
  },
  cancel: {
    summary:
      'cancel a transfer that was never signed: it fails for good and its caller is refunded once, by its report',
    conflicts: {
      TRANSFER_ALREADY_SIGNED: 'it is signed (it may still be mined)',
      TRANSFER_NOT_OPEN: 'it is settled already',
    },
    message: 'Cancelled',
  },
}
const ACTIONS = Object.keys(WHAT) as TransferAction[]

type AdminApp = Parameters<FastifyPluginAsyncTypebox>[0]

const page = <T>(
  q: { page?: number | undefined; limit?: number | undefined },
  r: { total: number; rows: T[] },
) => {
  const { page, limit } = pageOf(q)
  return { page, pages: Math.ceil(r.total / limit), limit, total: r.total, data: r.rows }
}

export const adminTransferRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  transfers: AdminTransfers
}> = async (app, { access, transfers }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/transfers',
    {
      schema: {
        operationId: 'adminTransfers',
        summary:
          'Outgoing transfers by state, coin, purpose and creation window (`from`, `to`), newest first (or oldest), with their age',
        tags,
        security,
        querystring: TransferQuery,
        response: { 200: envelope(TransferPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = req.query
      const r = await transfers.transfers({
        ...pageOf(q),
        state: q.status as never,
        coin: q.coin?.toLowerCase(),
        purpose: q.purpose,
        referenceId: q.referenceId,
        order: q.order ?? 'newest',
        ...createdRange(q),
      })
      return ok(page(q, r))
    },
  )

  app.get(
    '/v1/admin/transfers/:id',
    {
      schema: {
        operationId: 'adminTransfer',
        summary: 'One outgoing transfer: attempts, signed transactions, postings and reported events',
        tags,
        security,
        params: IdParams,
        response: {
          200: envelope(AdminTransferDetail),
          ...adminErrors({ NOT_FOUND: 'no transfer has this id' }),
        },
      },
    },
    async (req) => ok(await transfers.transfer(req.params.id)),
  )

  actionRoutes(app, {
    path: 'transfers',
    operation: 'adminTransfer',
    summary: (action) => `Outgoing transfer: ${WHAT[action].summary}`,
    notFound: 'no transfer has this id',
    data: Type.Object({ transfer: AdminTransferDetail, txHash: TxHash }),
    act: (actor, id, action, note) => transfers.act(actor, id, action, note),
  })

  app.get(
    '/v1/admin/withdrawals',
    {
      schema: {
        operationId: 'adminWithdrawals',
        summary:
          "Every account's withdrawals by status (`failing`), coin, user and creation window (`from`, `to`), oldest first (or newest)",
        tags,
        security,
        querystring: WithdrawalQuery,
        response: { 200: envelope(WithdrawalPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = req.query
      const r = await transfers.withdrawals({
        ...pageOf(q),
        status: q.status as never,
        coin: q.coin?.toLowerCase(),
        userId: q.user,
        order: q.order,
        ...createdRange(q),
      })
      return ok(page(q, r))
    },
  )

  actionRoutes(app, {
    path: 'withdrawals',
    operation: 'adminWithdrawal',
    summary: (action) => `Withdrawal, through its transfer: ${WHAT[action].summary}`,
    notFound: 'no withdrawal has this id',
    data: Type.Object({ withdrawal: AdminWithdrawal, transfer: AdminTransferDetail, txHash: TxHash }),
    act: (actor, id, action, note) => transfers.actOnWithdrawal(actor, id, action, note),
  })

  app.get(
    '/v1/admin/escrow-legs',
    {
      schema: {
        operationId: 'adminEscrowLegs',
        summary:
          'Escrow payout legs by status (`failing`), kind, coin, escrow and creation window (`from`, `to`), oldest first',
        tags,
        security,
        querystring: LegQuery,
        response: { 200: envelope(LegPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = req.query
      const r = await transfers.legs({
        ...pageOf(q),
        status: q.status as never,
        kind: q.kind as never,
        coin: q.coin?.toLowerCase(),
        escrowId: q.escrow,
        ...createdRange(q),
      })
      return ok(page(q, r))
    },
  )

  actionRoutes(app, {
    path: 'escrow-legs',
    operation: 'adminEscrowLeg',
    summary: (action) =>
      action === 'retry'
        ? "Escrow leg: run its open transfer now, or send the escrow's legs that failed for good again"
        : `Escrow leg, through its transfer: ${WHAT[action].summary}`,
    notFound: 'no escrow leg has this id',
    data: Type.Object({
      leg: AdminEscrowLeg,
      transfer: Type.Union([AdminTransferDetail, Type.Null()]),
      resent: Type.Integer({ description: 'failed legs of the escrow sent again', examples: [0] }),
      txHash: TxHash,
    }),
    act: (actor, id, action, note) => transfers.actOnLeg(actor, id, action, note),
  })
}

/**
 * The routes of every action on one kind of money on its way out: `POST /v1/admin/<path>/{id}/<action>`
 * with a reason, answering `data` with the action's message.
 */
function actionRoutes(
  app: AdminApp,
  kind: {
    path: string
    /** the operationId's stem; the action follows it, capitalised */
    operation: string
    summary: (action: TransferAction) => string
    notFound: string
    /** the answer's `data`, which serialises what `act` returns */
    data: TSchema
    act: (actor: AdminActor, id: string, action: TransferAction, note: OperatorNote) => Promise<unknown>
  },
) {
  for (const action of ACTIONS) {
    const w = WHAT[action]
    app.post(
      `/v1/admin/${kind.path}/:id/${action}`,
      {
        schema: {
          operationId: `${kind.operation}${action[0]!.toUpperCase()}${action.slice(1)}`,
          summary: kind.summary(action),
          tags,
          security,
          params: IdParams,
          body: action === 'cancel' ? CancelBody : ReasonBody,
          response: {
            200: envelope(kind.data, w.message),
            ...adminErrors({
              NOT_FOUND: kind.notFound,
              ...w.conflicts,
              ...(action === 'retry'
                ? { COIN_HALTED: "the transfer's coin is halted: resume it first" }
                : {}),
            }),
          },
        },
      },
      async (req) =>
        ok(await kind.act(actorOf(req), req.params.id, action, req.body as OperatorNote), w.message),
    )
  }
}
