// Proof-of-reserves series on /metrics, read from the latest snapshot of each coin at scrape time:
// the ratio of reserves to liabilities, an alarm (1 while reserves are below liabilities) and the
// time of the snapshot. The registry collects series concurrently: each reads for itself.
import { Gauge, type Registry } from 'prom-client'
import type { ReservesService, SnapshotView } from './service.ts'

export function registerReservesMetrics(registry: Registry, reserves: Pick<ReservesService, 'latest'>) {
  const series = (name: string, help: string, value: (s: SnapshotView) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['coin'],
      registers: [registry],
      async collect() {
        const latest = await reserves.latest()
        this.reset()
        for (const s of latest) {
          const v = value(s)
          if (v !== undefined) this.set({ coin: s.coin }, v)
        }
      },
    })
  const owed = (s: SnapshotView) => BigInt(s.liabilitiesTotal)
  const held = (s: SnapshotView) => BigInt(s.reservesTotal)
  return {
    ratio: series(
      'workpay_reserves_ratio',
      'Reserves over liabilities in the latest proof-of-reserves snapshot of each coin (absent while nothing is owed)',
      (s) => (owed(s) > 0n ? Number((held(s) * 1_000_000n) / owed(s)) / 1_000_000 : undefined),
    ),
    shortfall: series(
      'workpay_reserves_shortfall',
      '1 while the latest proof-of-reserves snapshot of a coin shows reserves below liabilities, else 0',
      (s) => (held(s) < owed(s) ? 1 : 0),
    ),
    taken: series(
      'workpay_reserves_snapshot_timestamp_seconds',
      'When the latest proof-of-reserves snapshot of each coin was taken (Unix seconds)',
      (s) => Date.parse(s.takenAt) / 1000,
    ),
  }
}
