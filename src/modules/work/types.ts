// What other modules may name of work: its services' types and the invite and dispute schemas
// (with their examples) that bookmarks and the operator's pages embed.
export type { WorkOperatorView } from './operator.ts'
export { DISPUTE, DISPUTE_ID } from './schema-examples.ts'
export { DecideBody, Dispute, Invite } from './schemas.ts'
export type { DisputeService } from './service-disputes.ts'
export type { InviteService } from './service-invites.ts'
