// The only SQL on disputes.
import { type Insertable, sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type { DisputeStatus, DisputesTable } from '../../db/tables/work.ts'

/** The operators' list of disputes: by status, created at or after `from` and before `to`. */
export interface DisputeListFilter {
  status?: DisputeStatus | undefined
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

export const disputeRepo = {
  async insert(ex: Executor, row: Insertable<DisputesTable>) {
    await ex.insertInto('disputes').values(row).execute()
  },

  /** Every dispute (operators), oldest first, by status and creation window. */
  async list(ex: Executor, f: DisputeListFilter) {
    let q = ex.selectFrom('disputes')
    if (f.status) q = q.where('status', '=', f.status)
    if (f.from) q = q.where('createdAt', '>=', f.from)
    if (f.to) q = q.where('createdAt', '<', f.to)
    return countedPage(q, (q) => q.selectAll(), { by: ['createdAt', 'id'], first: 'oldest' }, f)
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirst()
  },

  byCollection(ex: Executor, collectionId: string, forUpdate = false) {
    let q = ex.selectFrom('disputes').selectAll().where('collectionId', '=', collectionId)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  async propose(
    ex: Executor,
    id: string,
    by: string,
    split: { creatorCents: bigint; ownerCents: bigint },
    now: Date,
  ) {
    await ex
      .updateTable('disputes')
      .set({
        proposedBy: by,
        proposedCreatorCents: split.creatorCents,
        proposedOwnerCents: split.ownerCents,
        proposedAt: now,
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },

  async resolve(
    ex: Executor,
    id: string,
    r: {
      creatorCents: bigint
      ownerCents: bigint
      resolution: 'agreement' | 'arbiter'
      by: string
      note?: string
    },
    now: Date,
  ) {
    await ex
      .updateTable('disputes')
      .set({
        status: 'settling',
        resolution: r.resolution,
        creatorCents: r.creatorCents,
        ownerCents: r.ownerCents,
        ...(r.resolution === 'arbiter' ? { decidedBy: r.by } : {}),
        ...(r.note ? { note: r.note } : {}),
        resolvedAt: now,
        updatedAt: now,
        version: sql`version + 1`,
      })
      .where('id', '=', id)
      .execute()
  },

  async markPaid(ex: Executor, id: string, now: Date) {
    await ex
      .updateTable('disputes')
      .set({ status: 'settled', paidAt: now, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .where('status', '=', 'settling')
      .execute()
  },
}
