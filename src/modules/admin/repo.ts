// SQL of the admin module: session step-ups (`admin_elevations`) and the audit log (`admin_audit`,
// with settlement's system events from the shared `audit_log`).
import { type Insertable, sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { AdminAuditTable } from '../../db/tables/admin.ts'

/** The actions of settlement's system events (`<prefix>.<event>`) the audit log lists. */
export const SYSTEM_AUDIT_PREFIXES = ['chain', 'coin', 'reorg', 'reconciliation'] as const

export interface AuditFilter {
  actorId?: string | undefined
  action?: string | undefined
  targetId?: string | undefined
  targetType?: string | undefined
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

export const adminRepo = {
  async elevate(
    tx: Tx,
    row: { sessionId: string; userId: string; method: string; createdAt: Date; expiresAt: Date },
  ) {
    await tx
      .insertInto('adminElevations')
      .values(row)
      .onConflict((oc) =>
        oc.column('sessionId').doUpdateSet({
          method: row.method,
          createdAt: row.createdAt,
          expiresAt: row.expiresAt,
          userId: row.userId,
        }),
      )
      .execute()
  },

  elevation(ex: Executor, sessionId: string) {
    return ex
      .selectFrom('adminElevations')
      .select(['sessionId', 'userId', 'method', 'createdAt', 'expiresAt'])
      .where('sessionId', '=', sessionId)
      .executeTakeFirst()
  },

  async dropElevation(ex: Executor, sessionId: string) {
    await ex.deleteFrom('adminElevations').where('sessionId', '=', sessionId).execute()
  },

  /** Ends every step-up of an account (its admin role went, or it was suspended). */
  async dropElevationsOf(ex: Executor, userId: string) {
    await ex.deleteFrom('adminElevations').where('userId', '=', userId).execute()
  },

  activity(ex: Executor, sessionId: string) {
    return ex
      .selectFrom('adminSessionActivity')
      .select(['sessionId', 'userId', 'lastActiveAt'])
      .where('sessionId', '=', sessionId)
      .executeTakeFirst()
  },

  async touch(ex: Executor, row: { sessionId: string; userId: string; lastActiveAt: Date }) {
    await ex
      .insertInto('adminSessionActivity')
      .values(row)
      .onConflict((oc) => oc.column('sessionId').doUpdateSet({ lastActiveAt: row.lastActiveAt }))
      .execute()
  },

  async dropActivity(ex: Executor, sessionId: string) {
    await ex.deleteFrom('adminSessionActivity').where('sessionId', '=', sessionId).execute()
  },

  async insertAudit(tx: Tx, row: Insertable<AdminAuditTable>) {
    await tx.insertInto('adminAudit').values(row).execute()
  },

  /**
   * The audit log: the admins' actions, and the system events of settlement (the shared
   * `audit_log` rows without a user whose action is one of SYSTEM_AUDIT_PREFIXES: chain
   * reorganisations, coin halts and resumes, reorg findings, reconciliation), shown with the actor
   * `system`, the action's first word as target type, and the row's `meta` as details.
   */
  async listAudit(ex: Executor, f: AuditFilter) {
    const admin = ex
      .selectFrom('adminAudit')
      .select([
        'id',
        'actorId',
        'action',
        'targetType',
        'targetId',
        'reason',
        'requestId',
        'ip',
        'details',
        'createdAt',
      ])
    const system = ex
      .selectFrom('auditLog')
      .select([
        'id',
        sql<string>`'system'::text`.as('actorId'),
        'action',
        sql<string>`split_part(action, '.', 1)`.as('targetType'),
        sql<string>`coalesce(meta->>'findingId', meta->>'coin', meta->>'runId', meta->>'chainId', '')`.as(
          'targetId',
        ),
        sql<string>`coalesce(meta->>'reason', '')`.as('reason'),
        sql<string | null>`null::text`.as('requestId'),
        'ip',
        sql<Record<string, unknown>>`meta`.as('details'),
        'createdAt',
      ])
      .where('userId', 'is', null)
      .where((eb) => eb.or(SYSTEM_AUDIT_PREFIXES.map((p) => eb('action', 'like', `${p}.%`))))
    let q = ex.selectFrom(admin.unionAll(system).as('a'))
    if (f.actorId) q = q.where('actorId', '=', f.actorId)
    if (f.action) q = q.where('action', '=', f.action)
    if (f.targetId) q = q.where('targetId', '=', f.targetId)
    if (f.targetType) q = q.where('targetType', '=', f.targetType)
    if (f.from) q = q.where('createdAt', '>=', f.from)
    if (f.to) q = q.where('createdAt', '<', f.to)
    return countedPage(q, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'newest' }, f)
  },
}
