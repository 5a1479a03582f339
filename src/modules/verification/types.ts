// What other modules may name of identity verification: the requirement withdrawals ask.
export type { IdentityRequirement } from './requirement.ts'
