// The only SQL on the reserves tables: snapshots, reserve addresses, tree nodes and leaves. Rows
// are inserted once and never changed (the tables refuse updates and deletes).
import { type Insertable, type Selectable, sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import type { ReserveSnapshotsTable } from '../../db/tables/reserves.ts'

/** tree nodes or leaves per insert statement */
const CHUNK = 20_000

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
  /** the tree level by level, `levels[0]` the leaves in tree order */
  levels: { hash: Buffer; sum: bigint }[][]
  /** the private facts of each leaf, in tree order (the index is the position in `levels[0]`) */
  leaves: { label: string; userId: string | null; receiverId: string | null }[]
}

export const reservesRepo = {
  /**
   * Writes a snapshot. A tree of a million leaves is two million nodes: they go in statements of
   * CHUNK rows, each a handful of parameters (the hashes as one hex string, the sums and labels as
   * arrays) unnested by the database, rather than one parameter per value.
   */
  async insert(tx: Tx, s: StoredSnapshot): Promise<void> {
    const id = s.snapshot.id
    await tx.insertInto('reserveSnapshots').values(s.snapshot).execute()
    if (s.addresses.length > 0)
      await tx
        .insertInto('reserveAddresses')
        .values(
          s.addresses.map((a) => ({
            snapshotId: id,
            address: a.address,
            balance: a.balance,
            signature: a.signature,
          })),
        )
        .execute()
    for (const [level, nodes] of s.levels.entries())
      for (let from = 0; from < nodes.length; from += CHUNK) {
        const part = nodes.slice(from, from + CHUNK)
        const hashes = Buffer.concat(part.map((n) => n.hash))
        const sums = part.map((n) => n.sum.toString()).join(',')
        // bytea, not hex text: substring of a text is counted in characters from its start
        await sql`
          insert into reserve_nodes (snapshot_id, level, idx, hash, sum)
          select ${id}, ${level}::int, ${from}::int + (t.n - 1)::int,
                 encode(substring(${hashes}::bytea from ((t.n - 1) * 32 + 1)::int for 32), 'hex'), t.sum::numeric
          from unnest(string_to_array(${sums}::text, ',')) with ordinality as t(sum, n)`.execute(tx)
      }
    for (let from = 0; from < s.leaves.length; from += CHUNK) {
      const part = s.leaves.slice(from, from + CHUNK)
      await sql`
        insert into reserve_leaves (snapshot_id, idx, label, user_id, receiver_id)
        select ${id}, ${from}::int + (t.n - 1)::int, t.label, t.user_id, t.receiver_id
        from unnest(${part.map((l) => l.label)}::text[], ${part.map((l) => l.userId)}::text[],
                    ${part.map((l) => l.receiverId)}::text[]) with ordinality as t(label, user_id, receiver_id, n)`.execute(
        tx,
      )
    }
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

  /** A snapshot with its sealed salt secret (never published), for a proof. */
  getWithSecret(ex: Executor, id: string) {
    return ex
      .selectFrom('reserveSnapshots')
      .select([...snapshotColumns, 'sealedSecret'])
      .where('id', '=', id)
      .executeTakeFirst()
  },

  /**
   * The leaves of a snapshot that belong to a user (their wallet, escrows they fund or are paid
   * from), each with its own node (level 0) and the sibling of every level up to `depth`: one row
   * per node, `hash` and `sum` null where the position is the padding node.
   */
  async leavesWithPaths(ex: Executor, id: string, userId: string, depth: number) {
    const { rows } = await sql<{
      leafIdx: number
      label: string
      level: number
      idx: number
      hash: string | null
      sum: string | null
    }>`
      select l.idx as "leafIdx", l.label, p.level, p.idx, n.hash, n.sum::text as sum
      from reserve_leaves l
      cross join lateral (
        select 0 as level, l.idx as idx
        union all
        select d, (l.idx >> d) # 1 from generate_series(0, ${depth}::int - 1) d
      ) p
      left join reserve_nodes n on n.snapshot_id = l.snapshot_id and n.level = p.level and n.idx = p.idx
      where l.snapshot_id = ${id} and (l.user_id = ${userId} or l.receiver_id = ${userId})`.execute(ex)
    return rows
  },

  addresses(ex: Executor, id: string) {
    return ex
      .selectFrom('reserveAddresses')
      .select(['address', 'balance', 'signature'])
      .where('snapshotId', '=', id)
      .orderBy('address')
      .execute()
  },
}
