// Escrow (spec #13–#15).
import type { FeatureModule } from '../core.ts'

export const escrowModule: FeatureModule = async () => {}
