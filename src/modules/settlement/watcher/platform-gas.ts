// Gas top-ups the database has no record of: native value the platform's gas wallet sent to a
// custodial address in a timeline a restore lost. Booked as a registered top-up is, to the
// platform's gas account at the address (its `treasury` account of the native coin, where the
// sender's gas holds are taken from), never to the address's owner as a deposit.
import type { Tx } from '../../../db/index.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { Movement } from './types.ts'

/** Marks a parked movement recorded before top-ups were recognised (`classify` marks new ones). */
export function markPlatformGas(m: Movement, gasWallet: string, nativeCoin: string | null): Movement {
  if (m.platformGas || m.own || m.kind !== 'deposit' || m.logIndex !== -1) return m
  if (m.coin !== nativeCoin || m.from !== gasWallet) return m
  return { ...m, own: true, platformGas: true }
}

/** Names the platform's gas account at the address as what each unregistered top-up credits. */
export async function creditPlatformGas(tx: Tx, ledger: Ledger, movements: Movement[]): Promise<void> {
  for (const m of movements)
    if (m.platformGas && !m.creditAccountId)
      m.creditAccountId = await ledger.ensureAccount(tx, 'treasury', m.address, m.coin)
}
