// The account module: profile, tags, two-factor, sessions, people search (spec #5, #6, #36–#46).
import type { FeatureModule } from '../core.ts'
import { accountRoutes } from './routes.ts'
import { AccountSecurityService } from './security.ts'
import { twoFactorRoutes } from './two-factor-routes.ts'

declare module '../core.ts' {
  interface Services {
    /** password change, logout, deletion, two-factor, and codes for sensitive actions */
    accountSecurity: AccountSecurityService
  }
}

export const accountModule: FeatureModule = async ({ app, services, config, db, clock }) => {
  const security = new AccountSecurityService({
    db,
    clock,
    config,
    secrets: services.secrets,
    tokens: services.tokens,
    flows: services.flows,
    accounts: services.accounts,
    issueSession: (userId, meta, tx) => services.auth.issueSession(userId, meta, tx),
  })
  services.accountSecurity = security
  services.auth.twoFaLogin = security.startTwoFaLogin
  services.accounts.userCreatedHooks.push(services.accounts.referralHook)
  await app.register(accountRoutes, { accounts: services.accounts, security, config })
  await app.register(twoFactorRoutes, { security, config })
}
