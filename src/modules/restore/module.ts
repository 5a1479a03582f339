// Restores: restore mode (parked jobs, operators signed out, the report) and the platform's own
// transactions a restored database did not know, re-attached by operators. Built after the
// withdrawals and the outgoing sender it composes; its routes are admin routes.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AdminAccess, AdminAudit } from '../admin/types.ts'
import type { AuthService } from '../auth/types.ts'
import { ColdAddresses } from '../fees/module.ts'
import type { OutgoingSender } from '../settlement/types.ts'
import type { TransactionService } from '../transactions/types.ts'
import type { WithdrawalService } from '../withdrawals/types.ts'
import { PlatformTransfers } from './platform-transfers.ts'
import { restoreRoutes } from './routes.ts'
import { RestoreService } from './service.ts'

export function buildRestore(d: {
  db: Db
  config: Config
  chain: ChainAdapter
  clock: Clock
  log: Logger
  auth: AuthService
  outgoing: OutgoingSender
  withdrawals: WithdrawalService
  transactions: TransactionService
}) {
  const platformTransfers = new PlatformTransfers({
    db: d.db,
    chain: d.chain,
    clock: d.clock,
    log: d.log,
    outgoing: d.outgoing,
    withdrawals: d.withdrawals,
    transactions: d.transactions,
    // (the fees module's reading of the same configuration: where a fee sweep goes)
    cold: new ColdAddresses(d.config.feeSweepAddresses, d.chain),
  })
  const restore = new RestoreService({
    db: d.db,
    chain: d.chain,
    clock: d.clock,
    log: d.log,
    confirmations: d.config.confirmations,
    auth: d.auth,
    platformTransfers,
    outgoing: d.outgoing,
  })
  return { restore: { service: restore, platformTransfers } }
}

export async function restoreHttp(
  app: FastifyInstance,
  s: {
    restore: ReturnType<typeof buildRestore>['restore']
    admin: { access: AdminAccess; audit: AdminAudit }
    chain: Pick<ChainAdapter, 'coins'>
  },
) {
  await app.register(restoreRoutes, {
    access: s.admin.access,
    audit: s.admin.audit,
    platformTransfers: s.restore.platformTransfers,
    restore: s.restore.service,
    decimals: (coin) => s.chain.coins.find((c) => c.reference === coin)?.decimals ?? null,
  })
}
