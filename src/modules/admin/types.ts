// What other modules may name of the admin module: the operator guard's and the audit's types, and
// the schemas an operator route of another module shares. The route helpers (guard, actor, errors)
// are reached through module.ts.
export type { AdminAccess } from './access.ts'
export type { AdminActor, AdminAudit, AuditEntry } from './audit.ts'
export { Page, Reason, ReasonBody } from './schemas.ts'
