// What other modules may name of the wallet module: its service's and the operator view's types.
export type { WalletOperatorView } from './operator.ts'
export type { WalletService } from './service.ts'
