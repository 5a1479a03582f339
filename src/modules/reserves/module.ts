// Proof of reserves: Merkle-sum snapshots of the liabilities, the on-chain reserves at one block,
// attestations, and each user's proof of inclusion. Built after the ledger, settlement, escrow and
// admin; its scheduled snapshot is registered here (worker processes run it).
import type { FastifyInstance } from 'fastify'
import type { Db } from '../../db/index.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { AdminAccess } from '../admin/access.ts'
import type { AdminAudit } from '../admin/audit.ts'
import { registerReservesMetrics } from './metrics.ts'
import { reservesAdminRoutes, reservesRoutes } from './routes.ts'
import { ReservesService } from './service.ts'
import type { SnapshotDeps } from './snapshot.ts'

export async function buildReserves(
  d: Omit<SnapshotDeps, 'attestationKey'> & {
    config: { reservesAttestationKey: `0x${string}`; reservesSnapshotIntervalMs: number }
    jobs: JobQueue
    audit: AdminAudit
  },
) {
  const { config, jobs, audit, ...deps } = d
  const reserves = new ReservesService({
    ...deps,
    attestationKey: config.reservesAttestationKey,
    jobs,
    intervalMs: config.reservesSnapshotIntervalMs,
    audit: (actor, details) =>
      d.db.transaction().execute(async (tx) => {
        await audit.record(tx, actor, {
          action: 'reserves.snapshot',
          targetType: 'reserves',
          targetId: (details.snapshots as { id: string }[])[0]?.id ?? '',
          reason: String(details.reason ?? ''),
          details,
        })
      }),
  })
  reserves.register()
  await reserves.start()
  return { reserves }
}

export async function reservesHttp(
  app: FastifyInstance,
  s: { reserves: ReservesService; admin: { access: AdminAccess }; db: Db },
) {
  registerReservesMetrics(app.ops.metrics.registry, s.reserves)
  await app.register(reservesRoutes, { reserves: s.reserves })
  await app.register(reservesAdminRoutes, { reserves: s.reserves, access: s.admin.access })
}
