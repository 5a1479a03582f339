// What other modules may name of live pushes: the hub's type. Publishing is reached through
// module.ts (`publishLive`).
export type { LiveHub } from './hub.ts'
