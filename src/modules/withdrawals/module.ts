// Withdrawals to outside addresses (spec #22, #23): requests become settlement intents.
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import { WithdrawalOperatorView } from './operator.ts'
import { withdrawalRoutes } from './routes.ts'
import { WithdrawalService } from './service.ts'

/** The network fee a withdrawal of a coin pays, in the coin's base units. */
export { feeOf } from './service.ts'

/** The service registers its outcome handlers with the outgoing sender as it is built. */
export function buildWithdrawals(d: ConstructorParameters<typeof WithdrawalService>[0]) {
  return { withdrawals: new WithdrawalService(d), withdrawalView: new WithdrawalOperatorView({ db: d.db }) }
}

export async function withdrawalsHttp(app: FastifyInstance, s: { withdrawals: WithdrawalService; db: Db }) {
  await app.register(withdrawalRoutes, { withdrawals: s.withdrawals, db: s.db })
}
