// What other modules may name of connection filters: the gate that decides who may contact whom.
export type { ConnectionGate } from './service.ts'
