// What other modules may name of withdrawals: the service's and the operator view's types.
// Behaviour (`feeOf`) is reached through module.ts.
export type { WithdrawalFilter, WithdrawalOperatorView } from './operator.ts'
export type { WithdrawalService } from './service.ts'
