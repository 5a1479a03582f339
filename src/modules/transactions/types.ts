// What other modules may name of the transaction records: the service's type. Behaviour
// (`usableRate`) is reached through module.ts.
export type { TransactionService } from './service.ts'
