// Coins, chain configuration and USD rates (spec #16, #17, #21), and the chain adapter.
import type { FeatureModule } from '../core.ts'

export const paymentModule: FeatureModule = async () => {}
