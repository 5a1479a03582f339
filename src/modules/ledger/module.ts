// The double-entry ledger: the only writer of the ledger tables.
import type { Clock } from '../../platform/clock.ts'
import { Ledger } from './service.ts'

export function buildLedger(d: { clock: Clock }) {
  /** the double-entry ledger (balances, transfers, two-phase holds) */
  const ledger = new Ledger({ clock: d.clock })
  return { ledger }
}
