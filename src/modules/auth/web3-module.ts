// Sign-in with an Ethereum wallet (spec #10–#12).
import type { FeatureModule } from '../core.ts'

export const web3Module: FeatureModule = async () => {}
