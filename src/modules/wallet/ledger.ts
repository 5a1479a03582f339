// The ledger lives in modules/ledger; this name is kept while importers move there.
export { Ledger } from '../ledger/service.ts'
export * from '../ledger/types.ts'
