// What other modules may name of escrow: the service's and the operator's leg view's types.
export type { EscrowLegOperations, LegFilter } from './operator.ts'
export type { EscrowService } from './service.ts'
