// What other modules may name of the account module: its services' types and its constants.
// Behaviour (functions, the moderation factory) is reached through module.ts.
export type { AccountModeration, AccountSearch, StaffRole } from './moderation.ts'
export { MAX_WRONG_PASSWORDS } from './password-guard.ts'
export type { AccountSecurityService, ConfirmPassword, TwoFaSetupGate } from './security.ts'
export type { AccountService } from './service.ts'
export type { TagRow } from './tags.ts'
