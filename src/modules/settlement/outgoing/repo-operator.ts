// SQL of the operator's view of outgoing transfers: lists by state, coin and purpose, and the
// events reported for one transfer (tables `outgoing_transfers`, `outgoing_events`,
// `outgoing_transactions`, and `outgoing_postings`: read-only history of what transfers settled
// before callers reserved their extras with holds of their own booked with their outcome).
import { sql } from 'kysely'
import type { Executor } from '../../../db/index.ts'
import { countedPage } from '../../../db/reads.ts'
import type { OutgoingStatus } from '../../../db/tables/withdrawals.ts'
import { OPEN } from './types.ts'

/** A transfer's state as operators filter it: a stored status, or `open` (not settled) and
 * `failing` (not settled, with failed attempts). */
export type TransferState = OutgoingStatus | 'open' | 'failing'

export interface TransferFilter {
  state?: TransferState | undefined
  coin?: string | undefined
  purpose?: string | undefined
  /** the caller's record (withdrawal id, escrow leg id) */
  referenceId?: string | undefined
  /** newest first (default) or oldest first */
  order?: 'newest' | 'oldest' | undefined
  /** created at or after `from`, before `to` */
  from?: Date | undefined
  to?: Date | undefined
  page: number
  limit: number
}

export const operatorRepo = {
  async list(ex: Executor, f: TransferFilter) {
    let q = ex.selectFrom('outgoingTransfers')
    if (f.state === 'open') q = q.where('status', 'in', OPEN)
    // every recorded error counts here, a provider's transient ones too (they are not counted
    // against the transfer's limit, but an operator wants to see a transfer that cannot get out)
    else if (f.state === 'failing')
      q = q.where('status', 'in', OPEN).where(sql<number>`jsonb_array_length(errors)`, '>', 0)
    else if (f.state) q = q.where('status', '=', f.state)
    if (f.coin) q = q.where('coin', '=', f.coin)
    if (f.purpose) q = q.where('purpose', '=', f.purpose)
    if (f.referenceId) q = q.where('referenceId', '=', f.referenceId)
    if (f.from) q = q.where('createdAt', '>=', f.from)
    if (f.to) q = q.where('createdAt', '<', f.to)
    return countedPage(
      q,
      (q) =>
        q
          .selectAll()
          .select((eb) =>
            eb
              .selectFrom('outgoingTransactions as t')
              .whereRef('t.transferId', '=', 'outgoingTransfers.id')
              .select(sql<number>`count(*)::int`.as('n'))
              .as('transactionCount'),
          ),
      { by: ['createdAt', 'id'], first: f.order ?? 'newest' },
      f,
    )
  },

  events(ex: Executor, transferId: string) {
    return ex
      .selectFrom('outgoingEvents')
      .select(['event', 'appliedAt'])
      .where('transferId', '=', transferId)
      .orderBy('appliedAt')
      .orderBy('event')
      .execute()
  },

  postings(ex: Executor, transferId: string) {
    return ex
      .selectFrom('outgoingPostings')
      .selectAll()
      .where('transferId', '=', transferId)
      .orderBy('outcome')
      .orderBy('seq')
      .execute()
  },
}
