// File storage (spec #31–#35).
import type { FeatureModule } from '../core.ts'

export const filesModule: FeatureModule = async () => {}
