// Collections and bookmarks (spec #26–#30).
import type { FeatureModule } from '../core.ts'

export const collectionsModule: FeatureModule = async () => {}
