// Proof of reserves: Merkle-sum snapshots of the liabilities, the on-chain reserves at one block,
// attestations, and each user's proof of inclusion. Built after the ledger, settlement, escrow and
// admin; its scheduled snapshot is registered here (worker processes run it).
import type { FastifyInstance } from 'fastify'
import { privateKeyToAccount } from 'viem/accounts'
import type { Db } from '../../db/index.ts'
import { loadCoinsConfig } from '../../platform/chain/coins-config.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { AdminAccess, AdminAudit } from '../admin/types.ts'
import { registerReservesMetrics } from './metrics.ts'
import { reservesAdminRoutes, reservesRoutes } from './routes.ts'
import { ReservesService } from './service.ts'
import type { SnapshotDeps } from './snapshot.ts'

export async function buildReserves(
  d: Omit<SnapshotDeps, 'attestationKey'> & {
    config: {
      reservesAttestationKey: `0x${string}`
      reservesSnapshotIntervalMs: number
      coinsFile: string | undefined
    }
    jobs: JobQueue
    audit: AdminAudit
  },
) {
  const { config, jobs, audit, ...deps } = d
  // The address users check snapshots against is published in the coins file: a key that is not
  // that address's would sign snapshots every careful user rejects.
  const address = privateKeyToAccount(config.reservesAttestationKey).address.toLowerCase()
  const published = config.coinsFile
    ? loadCoinsConfig(config.coinsFile, false).chain.reservesAttestationAddress
    : undefined
  if (published && published !== address)
    throw new Error(
      `RESERVES_ATTESTATION_KEY is the key of ${address}, but COINS_FILE publishes ${published} as the proof-of-reserves attestation address`,
    )
  d.log.info(
    { event: 'reserves.attestation_address', address, publishedInCoinsFile: published !== undefined },
    `proof-of-reserves snapshots are attested by ${address}`,
  )
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
