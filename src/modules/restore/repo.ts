// Reads a restore needs across the platform's tables, read-only: when the copy was last written
// (the backup's moment, as near as the data tells it), which accounts hold operator power (the
// admin role, or a session stepped up now), and the open records of the copy an unknown platform
// transfer may have paid (escrow legs, fee sweeps); and the system audit rows of shell commands.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { newId } from '../../platform/crypto/ids.ts'

export const restoreRepo = {
  /**
   * The newest moment a row of the copy records: the latest job change, audit row, ledger transfer
   * or processed block. A backup taken while the service ran is at most moments after it.
   */
  async lastWrite(ex: Executor): Promise<Date | null> {
    const row = await sql<{ at: Date | string | null }>`
      select greatest(
        (select max(updated_at) from jobs),
        (select max(created_at) from audit_log),
        (select max(created_at) from ledger_transfers),
        (select max(updated_at) from chain_cursors)
      ) as at`.execute(ex)
    const at = row.rows[0]?.at
    return at ? new Date(at) : null
  },

  /** Accounts whose sessions a restore ends: every operator, and whoever holds a step-up. */
  async operatorIds(ex: Executor): Promise<string[]> {
    const rows = await sql<{ id: string }>`
      select id from users where role <> 'user'
      union
      select user_id as id from admin_elevations`.execute(ex)
    return rows.rows.map((r) => r.id)
  },

  /** Step-ups end with the sessions; the rows go as well. */
  async dropElevations(ex: Executor): Promise<number> {
    const res = await ex.deleteFrom('adminElevations').executeTakeFirst()
    return Number(res.numDeletedRows)
  },

  /**
   * Escrow legs of `escrowIds` still open in the copy whose current transfer is neither mined nor
   * failed (a transfer the copy still means to send), in the order the sender would take them.
   */
  openLegs(ex: Executor, escrowIds: readonly string[]) {
    if (escrowIds.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('escrowLegs as l')
      .innerJoin('escrows as e', 'e.id', 'l.escrowId')
      .innerJoin('outgoingTransfers as t', 't.id', 'l.outgoingId')
      .select([
        'l.id',
        'l.escrowId',
        'l.kind',
        'l.seq',
        'l.toAddress',
        'l.amount',
        'e.coin',
        't.id as transferId',
        't.status as transferStatus',
      ])
      .where('l.escrowId', 'in', [...escrowIds])
      .where('l.status', '<>', 'completed')
      .where('t.status', 'not in', ['completed', 'failed'])
      .orderBy('l.escrowId')
      .orderBy('l.seq')
      .execute()
  },

  /** Fee sweeps of `coins` still pending in the copy whose transfer is neither mined nor failed. */
  openSweeps(ex: Executor, coins: readonly string[]) {
    if (coins.length === 0) return Promise.resolve([])
    return ex
      .selectFrom('feeSweeps as s')
      .innerJoin('outgoingTransfers as t', 't.id', 's.outgoingId')
      .select([
        's.id',
        's.coin',
        's.toAddress',
        's.amount',
        's.createdAt',
        't.id as transferId',
        't.status as transferStatus',
      ])
      .where('s.coin', 'in', [...coins])
      .where('s.status', '=', 'pending')
      .where('t.status', 'not in', ['completed', 'failed'])
      .orderBy('s.createdAt')
      .orderBy('s.id')
      .execute()
  },

  /** A system audit row (no operator account: a command run from a shell names itself in `by`). */
  async audit(ex: Executor, action: string, meta: Record<string, unknown>) {
    await ex
      .insertInto('auditLog')
      .values({
        id: newId(),
        userId: null,
        action,
        ip: null,
        meta: JSON.stringify(meta),
        createdAt: new Date(),
      })
      .execute()
  },
}
