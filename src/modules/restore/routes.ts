// Operators after a restore: the platform's own transactions the restored database did not know
// (listed with the open records they may have paid, re-attached to a withdrawal, an escrow leg or a
// fee sweep, booked as a loss, or marked external) and the jobs the restore parked (released or
// dropped). Every action names its reason and is audited in its own transaction.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, IdParams, ok } from '../../http/schemas.ts'
import type { ParkedJob as ParkedJobRow } from '../../platform/jobs/parking.ts'
import { actorOf, adminErrors, guardElevated, pageOf, security, tags } from '../admin/module.ts'
import { type AdminAccess, type AdminAudit, ReasonBody } from '../admin/types.ts'
import type { PlatformTransfer as Finding, PlatformTransfers } from './platform-transfers.ts'
import {
  ParkedJob,
  ParkedJobPage,
  ParkedJobQuery,
  PlatformTransfer,
  PlatformTransferPage,
  PlatformTransferQuery,
  ReattachBody,
} from './schemas.ts'
import type { RestoreService } from './service.ts'

const NOT_FOUND = 'no unknown platform transfer has this id'
const JOB_NOT_FOUND = 'no job has this id'
const RESOLVED = 'the transaction was re-attached, booked as a loss or marked external already'

export const restoreRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  audit: AdminAudit
  platformTransfers: PlatformTransfers
  restore: RestoreService
  decimals: (coin: string) => number | null
}> = async (app, { access, audit, platformTransfers, restore, decimals }) => {
  guardElevated(app, access)
  const view = ({ id, ...f }: Finding) => ({ _id: id, ...f, decimals: decimals(f.coin) })
  const jobView = ({ id, ...j }: ParkedJobRow) => ({ _id: id, ...j })

  app.get(
    '/v1/admin/platform-transfers',
    {
      schema: {
        operationId: 'adminPlatformTransfers',
        summary:
          'Transactions custodial keys that were never exported signed which this database did not know (a restore), newest first, with what a re-attach would record',
        tags,
        security,
        querystring: PlatformTransferQuery,
        response: { 200: envelope(PlatformTransferPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = { ...pageOf(req.query), status: req.query.status }
      const { total, rows } = await platformTransfers.list(q)
      return ok({
        page: q.page,
        pages: Math.ceil(total / q.limit),
        limit: q.limit,
        total,
        data: rows.map(view),
      })
    },
  )

  app.get(
    '/v1/admin/platform-transfers/:id',
    {
      schema: {
        operationId: 'adminPlatformTransfer',
        summary: 'One unknown platform transfer',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(PlatformTransfer), ...adminErrors({ NOT_FOUND }) },
      },
    },
    async (req) => ok(view(await platformTransfers.get(req.params.id))),
  )

  app.post(
    '/v1/admin/platform-transfers/:id/reattach',
    {
      schema: {
        operationId: 'adminPlatformTransferReattach',
        summary:
          'Re-attach the transaction to what it paid (audited, one transaction): a user address’s withdrawal (the open one named by `withdrawalId`, or one recreated), an escrow’s open leg (`legId`, or the one candidate), or the fee address’s sweep (`sweepId`, the one candidate, or one recreated to the cold address); its hold is posted and its gas booked exactly as if it had been recorded before the restore, never a second debit',
        tags,
        security,
        params: IdParams,
        body: ReattachBody,
        response: {
          200: envelope(PlatformTransfer, 'Re-attached'),
          ...adminErrors({
            NOT_FOUND,
            PLATFORM_TRANSFER_RESOLVED: RESOLVED,
            PLATFORM_TRANSFER_MISMATCH:
              'the withdrawal, leg or sweep named is not open, or not of this owner, coin, destination and amount',
            PLATFORM_TRANSFER_MATCHES_OPEN_WITHDRAWAL:
              'none named, but an open withdrawal of the same owner, coin, destination and amount exists',
            PLATFORM_TRANSFER_AMBIGUOUS: 'several open legs or sweeps match: name one of `data.candidates`',
            PLATFORM_TRANSFER_UNMATCHED: 'no open leg or sweep matches and none can be recreated',
            PLATFORM_TRANSFER_NOT_A_WITHDRAWAL:
              'the transaction moved no value, or left a platform address that pays no withdrawal, leg or sweep',
            PLATFORM_TRANSFER_GAS_SHORT:
              'the platform value at the address is less than the gas the transaction paid',
            INSUFFICIENT_BALANCE: 'the owner’s wallet in the copy holds less than the amount and the fee',
            UNAVAILABLE: 'the chain does not answer the transaction’s receipt or block',
          }),
        },
      },
    },
    async (req) => {
      const actor = actorOf(req)
      const { reason, withdrawalId, legId, sweepId, fee } = req.body
      const done = await platformTransfers.reattach(
        req.params.id,
        { withdrawalId, legId, sweepId, fee },
        actor.userId,
        reason,
        async (tx, f, how) => {
          await audit.record(tx, actor, {
            action: 'platform-transfer.reattach',
            targetType: 'platform-transfer',
            targetId: f.id,
            reason,
            details: {
              txHash: f.txHash,
              address: f.address,
              coin: f.coin,
              amount: f.amount,
              to: f.to,
              withdrawalId: f.withdrawalId,
              record: f.record,
              transferId: f.transferId,
              recreated: how.recreated,
            },
          })
        },
      )
      return ok(view(done), 'Re-attached')
    },
  )

  app.post(
    '/v1/admin/platform-transfers/:id/loss',
    {
      schema: {
        operationId: 'adminPlatformTransferLoss',
        summary:
          'Book an escrow’s or the fee address’s transaction that matches no open record as a loss (audited, one transaction): its value out of the owner’s account (the escrow’s, the fee account) and its gas out of the platform’s gas at the address; what the escrow or the fees owe is then settled by hand',
        tags,
        security,
        params: IdParams,
        body: ReasonBody,
        response: {
          200: envelope(PlatformTransfer, 'Booked as a loss'),
          ...adminErrors({
            NOT_FOUND,
            PLATFORM_TRANSFER_RESOLVED: RESOLVED,
            PLATFORM_TRANSFER_LOSS_REFUSED:
              'the transaction left a user’s address (re-attach it or mark it external), moved no value from an escrow or the fee address, or an open leg or sweep matches it (re-attach it)',
            PLATFORM_TRANSFER_GAS_SHORT:
              'the platform value at the address is less than the gas the transaction paid',
            INSUFFICIENT_BALANCE:
              'the owner’s account holds less available than the value (open legs or sweeps reserve it)',
            UNAVAILABLE: 'the chain does not answer the transaction’s receipt or block',
          }),
        },
      },
    },
    async (req) => {
      const actor = actorOf(req)
      const { reason } = req.body
      const done = await platformTransfers.bookAsLoss(
        req.params.id,
        actor.userId,
        reason,
        async (tx, f, how) => {
          await audit.record(tx, actor, {
            action: 'platform-transfer.loss',
            targetType: 'platform-transfer',
            targetId: f.id,
            reason,
            details: {
              txHash: f.txHash,
              address: f.address,
              ownerKind: f.ownerKind,
              ownerId: f.ownerId,
              coin: f.coin,
              amount: f.amount,
              to: f.to,
              gasFee: f.gasFee,
              valueTransferId: how.valueTransferId ?? null,
            },
          })
        },
      )
      return ok(view(done), 'Booked as a loss')
    },
  )

  app.post(
    '/v1/admin/platform-transfers/:id/external',
    {
      schema: {
        operationId: 'adminPlatformTransferExternal',
        summary:
          'Judge the transaction signed outside the platform (a leaked key; audited): its parked movements are booked as an outside withdrawal of the owner once its coins resume',
        tags,
        security,
        params: IdParams,
        body: ReasonBody,
        response: {
          200: envelope(PlatformTransfer, 'Marked external'),
          ...adminErrors({ NOT_FOUND, PLATFORM_TRANSFER_RESOLVED: RESOLVED }),
        },
      },
    },
    async (req) => {
      const actor = actorOf(req)
      const { reason } = req.body
      const done = await platformTransfers.markExternal(
        req.params.id,
        actor.userId,
        reason,
        async (tx, f) => {
          await audit.record(tx, actor, {
            action: 'platform-transfer.external',
            targetType: 'platform-transfer',
            targetId: f.id,
            reason,
            details: { txHash: f.txHash, address: f.address, coin: f.coin, amount: f.amount, to: f.to },
          })
        },
      )
      return ok(view(done), 'Marked external')
    },
  )

  app.get(
    '/v1/admin/parked-jobs',
    {
      schema: {
        operationId: 'adminParkedJobs',
        summary:
          'Jobs with an outside effect (mail, webhooks, chain transfers, object deletions) a restore parked for review, oldest first',
        tags,
        security,
        querystring: ParkedJobQuery,
        response: { 200: envelope(ParkedJobPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = { ...pageOf(req.query), kind: req.query.kind }
      const { total, rows } = await restore.listParked(q)
      return ok({
        page: q.page,
        pages: Math.ceil(total / q.limit),
        limit: q.limit,
        total,
        data: rows.map(jobView),
      })
    },
  )

  for (const action of ['release', 'drop'] as const)
    app.post(
      `/v1/admin/parked-jobs/:id/${action}`,
      {
        schema: {
          operationId: action === 'release' ? 'adminParkedJobRelease' : 'adminParkedJobDrop',
          summary:
            action === 'release'
              ? 'Release a parked job (audited): queued again, due now'
              : 'Drop a parked job (audited): deleted without running; a parked outgoing transfer is refused (release it, or cancel its transfer)',
          tags,
          security,
          params: IdParams,
          body: ReasonBody,
          response: {
            200: envelope(ParkedJob, action === 'release' ? 'Released' : 'Dropped'),
            ...adminErrors({
              NOT_FOUND: JOB_NOT_FOUND,
              JOB_NOT_PARKED: 'the job is not parked',
              ...(action === 'drop'
                ? { PARKED_TRANSFER_NOT_DROPPABLE: 'the job sends an outgoing transfer' }
                : {}),
            }),
          },
        },
      },
      async (req) => {
        const actor = actorOf(req)
        const { reason } = req.body
        const record = async (
          tx: Parameters<Parameters<RestoreService['release']>[1]>[0],
          job: { id: string; kind: string; about: Record<string, unknown> },
        ) => {
          await audit.record(tx, actor, {
            action: `parked-job.${action}`,
            targetType: 'job',
            targetId: job.id,
            reason,
            details: { kind: job.kind, about: job.about },
          })
        }
        const job =
          action === 'release'
            ? await restore.release(req.params.id, record)
            : await restore.drop(req.params.id, record)
        return ok(jobView(job), action === 'release' ? 'Released' : 'Dropped')
      },
    )
}
