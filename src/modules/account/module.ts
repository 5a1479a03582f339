// The account module: profile, tags, two-factor, sessions, people search (spec #5, #6, #36–#46).
import type { FeatureModule } from '../core.ts'
import { accountRoutes } from './routes.ts'

export const accountModule: FeatureModule = async ({ app, services }) => {
  await app.register(accountRoutes, { accounts: services.accounts })
}
