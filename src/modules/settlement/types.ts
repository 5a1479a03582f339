// What other modules may name of settlement: its services' types. Behaviour is reached through
// the services module.ts builds.
export type { CustodialKey, KeyOwnerKind, KeyStore } from './keys.ts'
export type { DepositWatcher, ScanResult } from './watcher/job.ts'
