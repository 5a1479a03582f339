// The platform's fees: balances per coin with the cold address and the latest sweeps, and the sweep
// (Idempotency-Key honoured like every money-moving POST).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Db } from '../../../db/index.ts'
import { caller } from '../../../http/auth.ts'
import { idempotent } from '../../../http/idempotency.ts'
import { envelope, IDEMPOTENCY_CASES, ok, withIdempotencyKey } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import type { AdminFees } from '../fees.ts'
import { FeeSweep, FeesOverview, SweepBody } from '../schemas-fees.ts'
import { actorOf, adminErrors, guardElevated, security, tags } from './common.ts'

const SWEPT = 'Sweep queued'

export const adminFeeRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  fees: AdminFees
  db: Db
}> = async (app, { access, fees, db }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/fees',
    {
      schema: {
        operationId: 'adminFees',
        summary:
          "Platform fees per coin: the fee address's balance, what a sweep in flight reserves, what can be swept, the cold address and the latest sweeps",
        tags,
        security,
        response: { 200: envelope(FeesOverview), ...adminErrors() },
      },
    },
    async () => ok(await fees.overview()),
  )

  app.post(
    '/v1/admin/fees/sweep',
    {
      schema: {
        operationId: 'adminSweepFees',
        summary: "Sweep a coin's platform fees from the fee address to its cold address",
        description:
          'Holds `amount` (default: all that is sweepable) on the fee account and queues an outgoing transfer to the cold address funded by that hold, in one transaction with the audit row (`fee.sweep`); answers at once with the sweep `pending`. Settlement posts the hold when the transfer is mined (`confirmed`) and voids it when the transfer fails for good (`failed`: the amount is sweepable again). Its gas is paid from the platform value at the fee address, topped up by the gas wallet. One sweep per coin at a time. Errors carry `data.cause`. Honours `Idempotency-Key`.',
        tags,
        security,
        ...withIdempotencyKey,
        body: SweepBody,
        response: {
          200: envelope(FeeSweep, SWEPT),
          ...adminErrors({
            VALIDATION_ERROR: 'a field fails its schema, an unknown coin, or an amount of 0',
            SWEEP_IN_FLIGHT: {
              when: 'a sweep of the coin is in flight (`data.sweepId`)',
              message: 'A sweep of AVAX is in flight; wait until it is confirmed or failed',
              data: { cause: 'SWEEP_IN_FLIGHT', sweepId: '65f1c0a2b3c4d5e6f7a8b9f1' },
            },
            HALTED_COIN_REFUSED: 'the coin is halted by settlement',
            ...IDEMPOTENCY_CASES,
            NO_COLD_ADDRESS: {
              when: 'no cold address is configured for the coin',
              message:
                'No cold address is configured for AVAX: set FEE_SWEEP_ADDRESS (every coin) or FEE_SWEEP_ADDRESS_AVAX',
              data: { cause: 'NO_COLD_ADDRESS' },
            },
            COLD_ADDRESS_REFUSED: 'the cold address is an address of the platform’s own',
            INSUFFICIENT_BALANCE: {
              when: 'nothing can be swept (`NOTHING_TO_SWEEP`), or the amount is more than what is sweepable (`OVER_SWEEPABLE`, with `sweepable`)',
              message: 'At most 2 AVAX can be swept now',
              data: { cause: 'OVER_SWEEPABLE', sweepable: '2000000000000000000' },
            },
          }),
        },
      },
    },
    async (req, reply) => {
      const { userId } = caller(req)
      const actor = actorOf(req)
      return idempotent(db, req, reply, userId, async (key) => ({
        statusCode: 200,
        body: ok(await fees.sweep(actor, req.body, key), SWEPT),
      }))
    },
  )
}
