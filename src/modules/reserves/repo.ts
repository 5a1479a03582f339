// The only SQL on the reserves tables: snapshots, reserve addresses, tree nodes and leaves. Rows
// are inserted once and never changed (the tables refuse updates and deletes).
import { type Insertable, type Selectable, sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import type { ReserveSnapshotsTable } from '../../db/tables/reserves.ts'

/** rows per insert statement */
const BATCH = 1000

const snapshotColumns = [
  'id',
  'runId',
  'chainId',
  'coin',
  'asset',
  'decimals',
  'blockNumber',
  'blockHash',
  'takenAt',
  'rootHash',
  'liabilitiesTotal',
  'reservesTotal',
  'leafCount',
  'message',
  'signature',
  'attestationAddress',
  'trigger',
] as const

export type SnapshotRow = Pick<Selectable<ReserveSnapshotsTable>, (typeof snapshotColumns)[number]>

export interface StoredSnapshot {
  snapshot: Insertable<ReserveSnapshotsTable>
  addresses: { address: string; balance: bigint; signature: string }[]
  nodes: { level: number; idx: number; hash: string; sum: bigint }[]
  leaves: { idx: number; label: string; userId: string | null; receiverId: string | null }[]
}

async function inBatches<T>(rows: T[], insert: (batch: T[]) => Promise<unknown>) {
  for (let i = 0; i < rows.length; i += BATCH) await insert(rows.slice(i, i + BATCH))
}

export const reservesRepo = {
  async insert(tx: Tx, s: StoredSnapshot): Promise<void> {
    const id = s.snapshot.id
    await tx.insertInto('reserveSnapshots').values(s.snapshot).execute()
    await inBatches(s.addresses, (b) =>
      tx
        .insertInto('reserveAddresses')
        .values(
          b.map((a) => ({ snapshotId: id, address: a.address, balance: a.balance, signature: a.signature })),
        )
        .execute(),
    )
    await inBatches(s.nodes, (b) =>
      tx
        .insertInto('reserveNodes')
        .values(b.map((n) => ({ snapshotId: id, ...n })))
        .execute(),
    )
    await inBatches(s.leaves, (b) =>
      tx
        .insertInto('reserveLeaves')
        .values(b.map((l) => ({ snapshotId: id, ...l })))
        .execute(),
    )
  },

  /** The newest snapshot of each coin. */
  latestPerCoin(ex: Executor): Promise<SnapshotRow[]> {
    return ex
      .selectFrom('reserveSnapshots as s')
      .select(snapshotColumns.map((c) => `s.${c}` as const))
      .where(({ eb, selectFrom }) =>
        eb(
          's.id',
          '=',
          selectFrom('reserveSnapshots as n')
            .select('n.id')
            .whereRef('n.coin', '=', 's.coin')
            .orderBy('n.takenAt', 'desc')
            .orderBy('n.id', 'desc')
            .limit(1),
        ),
      )
      .orderBy('s.coin')
      .execute()
  },

  /** Snapshots newest first (one coin, or all). */
  history(ex: Executor, limit: number, coin?: string): Promise<SnapshotRow[]> {
    let q = ex.selectFrom('reserveSnapshots').select(snapshotColumns)
    if (coin) q = q.where('coin', '=', coin)
    return q.orderBy('takenAt', 'desc').orderBy('id', 'desc').limit(limit).execute()
  },

  get(ex: Executor, id: string): Promise<SnapshotRow | undefined> {
    return ex.selectFrom('reserveSnapshots').select(snapshotColumns).where('id', '=', id).executeTakeFirst()
  },

  sealedSecret(ex: Executor, id: string) {
    return ex.selectFrom('reserveSnapshots').select('sealedSecret').where('id', '=', id).executeTakeFirst()
  },

  addresses(ex: Executor, id: string) {
    return ex
      .selectFrom('reserveAddresses')
      .select(['address', 'balance', 'signature'])
      .where('snapshotId', '=', id)
      .orderBy('address')
      .execute()
  },

  /** The leaves of a snapshot that belong to a user (their wallet, escrows they fund or are paid from). */
  leavesOf(ex: Executor, id: string, userId: string) {
    return ex
      .selectFrom('reserveLeaves')
      .select(['idx', 'label'])
      .where('snapshotId', '=', id)
      .where((eb) => eb.or([eb('userId', '=', userId), eb('receiverId', '=', userId)]))
      .orderBy('idx')
      .execute()
  },

  /** Nodes by (level, idx); absent positions are the padding node. */
  async nodes(ex: Executor, id: string, positions: { level: number; idx: number }[]) {
    if (positions.length === 0) return []
    const wanted = sql.join(positions.map((p) => sql`(${p.level}, ${p.idx})`))
    return ex
      .selectFrom('reserveNodes')
      .select(['level', 'idx', 'hash', 'sum'])
      .where('snapshotId', '=', id)
      .where(sql<boolean>`(level, idx) in (${wanted})`)
      .execute()
  },
}
