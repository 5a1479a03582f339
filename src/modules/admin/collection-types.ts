// Admin changes to collection types: each in one transaction with its audit row.
import type { Db } from '../../db/index.ts'
import type { CollectionTypeService } from '../collections/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export class AdminCollectionTypes {
  constructor(private readonly deps: { db: Db; types: CollectionTypeService; audit: AdminAudit }) {}

  list(q: { page?: number; limit?: number; search?: string }) {
    return this.deps.types.list(q, true)
  }

  create(actor: AdminActor, input: { name: string; value: string; description?: string; reason: string }) {
    const { reason, ...fields } = input
    return this.deps.db.transaction().execute(async (tx) => {
      const created = await this.deps.types.create(tx, fields)
      await this.deps.audit.record(tx, actor, {
        action: 'collection-type.create',
        targetType: 'collection-type',
        targetId: created._id,
        reason,
        details: { name: created.name, value: created.value },
      })
      return created
    })
  }

  update(
    actor: AdminActor,
    id: string,
    input: { name?: string; description?: string; active?: boolean; reason: string },
  ) {
    const { reason, ...patch } = input
    return this.deps.db.transaction().execute(async (tx) => {
      const { before, after } = await this.deps.types.update(tx, id, patch)
      await this.deps.audit.record(tx, actor, {
        action: 'collection-type.update',
        targetType: 'collection-type',
        targetId: id,
        reason,
        details: {
          before: { name: before.name, description: before.description, active: before.active },
          after: { name: after.name, description: after.description, active: after.active },
        },
      })
      return after
    })
  }
}
