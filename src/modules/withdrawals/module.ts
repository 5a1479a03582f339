// Withdrawals to outside addresses (spec #22, #23).
import type { FeatureModule } from '../core.ts'

export const withdrawalsModule: FeatureModule = async () => {}
