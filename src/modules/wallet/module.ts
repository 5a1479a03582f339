// Coins, chain, custodial wallets, ledger, deposits and transactions (spec #16–#21, #24, #25).
import type { FeatureModule } from '../core.ts'

export const walletModule: FeatureModule = async () => {}
