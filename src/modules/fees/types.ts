// What other modules may name of fees: the service's type and the fee vault's ledger account
// (kind and owner), which operator statistics read.
export type { FeeService } from './service.ts'
export { FEE_VAULT_KIND, FEE_VAULT_OWNER } from './vault.ts'
