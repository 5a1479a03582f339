// SQL of the admin module: session step-ups (`admin_elevations`) and the audit log (`admin_audit`).
import type { Insertable } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { AdminAuditTable } from '../../db/tables/admin.ts'

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

  async insertAudit(tx: Tx, row: Insertable<AdminAuditTable>) {
    await tx.insertInto('adminAudit').values(row).execute()
  },

  async listAudit(ex: Executor, f: AuditFilter) {
    let q = ex.selectFrom('adminAudit')
    if (f.actorId) q = q.where('actorId', '=', f.actorId)
    if (f.action) q = q.where('action', '=', f.action)
    if (f.targetId) q = q.where('targetId', '=', f.targetId)
    if (f.targetType) q = q.where('targetType', '=', f.targetType)
    if (f.from) q = q.where('createdAt', '>=', f.from)
    if (f.to) q = q.where('createdAt', '<', f.to)
    return countedPage(q, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'newest' }, f)
  },
}
