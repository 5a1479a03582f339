// The platform's fees: the fee address escrow releases pay their platform fee to, and sweeps of
// what it holds to a cold address (configured by FEE_SWEEP_ADDRESS / FEE_SWEEP_ADDRESS_<COIN>).
// Built after the outgoing sender (sweeps are its transfers) and before escrow (which pays fees to
// the fee address). The operator's routes are in the admin module.
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Ledger } from '../ledger/types.ts'
import type { SettlementChecks } from '../settlement/module.ts'
import type { KeyStore, OutgoingSender } from '../settlement/types.ts'
import { ColdAddresses } from './cold-address.ts'
import { FeeService } from './service.ts'
import { ensureFeeVault } from './vault.ts'

export async function buildFees(d: {
  db: Db
  config: Config
  clock: Clock
  log: Logger
  chain: ChainAdapter
  coins: { listAllSync(): { reference: string; active: boolean }[] }
  ledger: Ledger
  keys: KeyStore
  outgoing: OutgoingSender
  settlement: SettlementChecks
}) {
  const feeAddress = await ensureFeeVault(d.db, d.keys)
  const cold = new ColdAddresses(d.config.feeSweepAddresses, d.chain)
  // A cold address that names no coin or an address of the platform's own stops the start.
  await cold.check(d.db, d.keys, feeAddress)
  const fees = new FeeService({
    db: d.db,
    clock: d.clock,
    log: d.log,
    chain: d.chain,
    active: (coin) => d.coins.listAllSync().find((c) => c.reference === coin)?.active ?? false,
    ledger: d.ledger,
    outgoing: d.outgoing,
    keys: d.keys,
    halts: d.settlement.halts,
    cold,
    feeAddress,
  })
  return { fees }
}

// What a restore's re-attach of a fee sweep the copy lost reads and writes (modules/restore): the
// cold addresses, the sweep's purpose and its records.
export { ColdAddresses } from './cold-address.ts'
export { FEE_SWEEP_PURPOSE } from './outcomes.ts'
export { feeRepo } from './repo.ts'
