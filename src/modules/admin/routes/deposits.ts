// The deposit question: one transaction hash as the chain and the watcher know it, and an audited
// rescan of one address over a block range for a deposit the watcher missed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { envelope, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminDeposits } from '../deposits.ts'
import { DepositLookup, RescanBody, RescanQueued, TxHashParams } from '../schemas-deposits.ts'
import { actorOf, adminErrors, guardElevated, security, tags } from './common.ts'

const QUEUED = 'Rescan queued'

export const adminDepositRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  deposits: AdminDeposits
}> = async (app, { access, deposits }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/deposits/:txHash',
    {
      schema: {
        operationId: 'adminDepositLookup',
        summary:
          'Where is a deposit: one transaction hash as the chain and the watcher know it (who received it, confirmations, credited or why not)',
        description:
          'Answers 200 whatever is found: `outcome` says whether the chain knows the hash, whether it reverted, whether anything reached a platform address, and each deposit found says its `state` with an `explanation` to give the customer.',
        tags,
        security,
        params: TxHashParams,
        response: { 200: envelope(DepositLookup), ...adminErrors() },
      },
    },
    async (req) => ok(await deposits.lookup(req.params.txHash)),
  )

  app.post(
    '/v1/admin/deposits/rescan',
    {
      schema: {
        operationId: 'adminRescanBlocks',
        summary: "Re-scan one platform address's deposits of a coin over a block range (audited)",
        description:
          'Queues settlement’s rescan job in the transaction of the audit row (`deposit.rescan`): it reads the range again and credits what the watcher missed exactly as the watcher would (a deposit is credited once, whoever finds it), then reconciliation checks the address again. At most 5,000 blocks, up to the newest block the watcher has read.',
        tags,
        security,
        body: RescanBody,
        response: {
          200: envelope(RescanQueued, QUEUED),
          ...adminErrors({
            VALIDATION_ERROR:
              'a field fails its schema, an unknown coin, a range backwards, wider than 5,000 blocks or past the watcher, or an address that is not the platform’s',
          }),
        },
      },
    },
    async (req) => ok(await deposits.rescan(actorOf(req), req.body), QUEUED),
  )
}
