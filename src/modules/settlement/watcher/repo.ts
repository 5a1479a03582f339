// The only SQL over the deposit watcher's tables: the chain cursor, chain events (credited,
// parked or reported), the transactions the platform signed, and the custodial address lookup.
import { sql } from 'kysely'
import { sendAhead } from '../../../db/ahead.ts'
import type { Db, Executor, Tx } from '../../../db/index.ts'
import type { ChainEventKind } from '../../../db/tables/chain.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import type { Custodial, Movement, OwnTransaction } from './types.ts'

/** `where … in (…)` lists are sent in chunks of this size */
const CHUNK = 1000

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

/** A recorded deposit's transaction, address, owner, value and block, as every read of deposits
 * selects them. */
export const recordedDepositColumns = [
  'txHash',
  'logIndex',
  'address',
  'ownerKind',
  'ownerId',
  'coin',
  'amount',
  'blockNumber',
] as const

/** The primary key of a chain event. */
export interface EventKey {
  chainId: string
  txHash: string
  logIndex: number
  kind: ChainEventKind
  address: string
}

const byKey = (k: EventKey) => ({
  chainId: k.chainId,
  txHash: k.txHash,
  logIndex: k.logIndex,
  kind: k.kind,
  address: k.address,
})

/** A credited deposit whose report is still to be handled. */
export interface UnreportedDeposit {
  txHash: string
  logIndex: number
  coin: string
  amount: bigint
  blockNumber: number
  transferId: string
  accountId: string | null
}

export const watcherRepo = {
  /**
   * Runs `fn` holding the session advisory lock (namespace, chain id) on a dedicated connection;
   * undefined without running it when another session holds the lock.
   */
  async whileLeading<T>(
    db: Db,
    namespace: number,
    chainId: number,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    return db.connection().execute(async (conn) => {
      const got = await sql<{
        ok: boolean
      }>`select pg_try_advisory_lock(${namespace}, ${chainId}) as ok`.execute(conn)
      if (!got.rows[0]?.ok) return undefined
      try {
        return await fn()
      } finally {
        await sql`select pg_advisory_unlock(${namespace}, ${chainId})`.execute(conn)
      }
    })
  },

  async cursor(ex: Executor, chainId: string) {
    const row = await ex
      .selectFrom('chainCursors')
      .select(['blockNumber', 'blockHash'])
      .where('chainId', '=', chainId)
      .executeTakeFirst()
    return row ? { number: BigInt(row.blockNumber), hash: row.blockHash } : null
  },

  async insertCursor(ex: Executor, chainId: string, block: { number: bigint; hash: string }, now: Date) {
    await ex
      .insertInto('chainCursors')
      .values({ chainId, blockNumber: Number(block.number), blockHash: block.hash, updatedAt: now })
      .onConflict((oc) => oc.column('chainId').doNothing())
      .execute()
  },

  /** The cursor's block number, its row locked for the rest of `tx`. */
  async lockCursor(tx: Tx, chainId: string): Promise<bigint | null> {
    const row = await tx
      .selectFrom('chainCursors')
      .select('blockNumber')
      .where('chainId', '=', chainId)
      .forUpdate()
      .executeTakeFirst()
    return row ? BigInt(row.blockNumber) : null
  },

  async moveCursor(tx: Tx, chainId: string, block: { number: bigint; hash: string }, now: Date) {
    await tx
      .updateTable('chainCursors')
      .set({ blockNumber: Number(block.number), blockHash: block.hash, updatedAt: now })
      .where('chainId', '=', chainId)
      .execute()
  },

  /** Replaces the hash of the block at the cursor (the chain now has another block there). */
  async replaceCursorHash(
    tx: Tx,
    chainId: string,
    at: { number: bigint; hash: string },
    hash: string,
    now: Date,
  ) {
    const res = await tx
      .updateTable('chainCursors')
      .set({ blockHash: hash, updatedAt: now })
      .where('chainId', '=', chainId)
      .where('blockNumber', '=', Number(at.number))
      .where('blockHash', '=', at.hash)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** The custodial keys among `addresses` (any case), by lower-case address (indexed lookup). */
  async custodialByAddresses(ex: Executor, addresses: string[]): Promise<Map<string, Custodial>> {
    const list = [...new Set(addresses.map((a) => a.toLowerCase()))]
    const out = new Map<string, Custodial>()
    for (const part of chunks(list)) {
      const rows = await ex
        .selectFrom('walletKeys')
        .select(['address', 'ownerKind', 'ownerId', 'exportedAt'])
        .where('address', 'in', part)
        .execute()
      for (const r of rows) out.set(r.address, r)
    }
    return out
  },

  /** The transactions among `hashes` (lower case) that the platform signed, by hash. */
  async ownTransactions(
    ex: Executor,
    chainId: string,
    hashes: string[],
  ): Promise<Map<string, OwnTransaction>> {
    const out = new Map<string, OwnTransaction>()
    for (const part of chunks([...new Set(hashes)])) {
      const rows = await ex
        .selectFrom('chainOutgoing')
        .select(['txHash', 'creditAccountId'])
        .where('chainId', '=', chainId)
        .where('txHash', 'in', part)
        .execute()
      for (const r of rows) out.set(r.txHash, { creditAccountId: r.creditAccountId })
    }
    return out
  },

  /** Registers a transaction the platform signs (before it is broadcast). */
  async registerOwn(
    ex: Executor,
    row: {
      chainId: string
      txHash: string
      address: string
      purpose: string
      creditAccountId: string | null
    },
    now: Date,
  ) {
    await sendAhead(
      ex,
      ex
        .insertInto('chainOutgoing')
        .values({
          ...row,
          txHash: row.txHash.toLowerCase(),
          address: row.address.toLowerCase(),
          createdAt: now,
        })
        .onConflict((oc) => oc.columns(['chainId', 'txHash']).doNothing()),
    )
  },

  /** Records a movement once; false when it was recorded before. `held`: parked, not applied. */
  async insertEvent(tx: Tx, chainId: string, m: Movement, now: Date, held = false): Promise<boolean> {
    const inserted = await tx
      .insertInto('chainEvents')
      .values({
        chainId,
        txHash: m.txHash,
        logIndex: m.logIndex,
        kind: m.kind,
        address: m.address,
        ownerKind: m.custodial.ownerKind,
        ownerId: m.custodial.ownerId,
        coin: m.coin,
        amount: m.amount.toString(),
        blockNumber: Number(m.blockNumber),
        blockHash: m.blockHash,
        txIndex: m.txIndex,
        held: held ? json(m) : null,
        createdAt: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('txHash')
      .executeTakeFirst()
    return inserted !== undefined
  },

  async setOutcome(
    tx: Tx,
    key: EventKey,
    outcome: { transferId: string | null; transactionId: string | null; accountId: string | null },
  ) {
    await tx
      .updateTable('chainEvents')
      .set(outcome)
      .where((eb) => eb.and(byKey(key)))
      .execute()
  },

  /**
   * Parked movements of the chain, oldest first, except those of `halted` coins and those of
   * transactions with an open platform transfer finding (they stay parked until an operator
   * re-attaches the transaction or judges it external): left out by the query itself, so a long
   * backlog of such movements is never read to be thrown away, and never hides those behind it.
   */
  async held(ex: Executor, chainId: string, halted: string[], limit: number) {
    let q = ex
      .selectFrom('chainEvents as e')
      .select(['e.held'])
      .where('e.chainId', '=', chainId)
      .where('e.held', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('platformTransferFindings as f')
              .select('f.id')
              .whereRef('f.chainId', '=', 'e.chainId')
              .whereRef('f.txHash', '=', 'e.txHash')
              .where('f.status', '=', 'open'),
          ),
        ),
      )
    if (halted.length > 0) q = q.where('e.coin', 'not in', halted)
    const rows = await q
      .orderBy('e.blockNumber')
      .orderBy('e.txIndex')
      .orderBy('e.logIndex')
      .limit(limit)
      .execute()
    return rows.map((r) => r.held as Record<string, unknown>)
  },

  /** Parked deposits of `coin` to one address (locked), whatever the coin's halt. */
  async heldDepositsAt(tx: Tx, chainId: string, address: string, coin: string) {
    const rows = await tx
      .selectFrom('chainEvents')
      .select(['held'])
      .where('chainId', '=', chainId)
      .where('address', '=', address)
      .where('kind', '=', 'deposit')
      .where('coin', '=', coin)
      .where('held', 'is not', null)
      .orderBy('blockNumber')
      .orderBy('txIndex')
      .forUpdate()
      .execute()
    return rows.map((r) => r.held as Record<string, unknown>)
  },

  /** Takes a parked movement out of the parking (false when another pass took it). */
  async unpark(tx: Tx, key: EventKey): Promise<boolean> {
    const res = await tx
      .updateTable('chainEvents')
      .set({ held: null })
      .where((eb) => eb.and(byKey(key)))
      .where('held', 'is not', null)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** Credited deposits to `address` whose report was not handled yet, in chain order. */
  async unreported(ex: Executor, address: string): Promise<UnreportedDeposit[]> {
    const rows = await ex
      .selectFrom('chainEvents')
      .select(['txHash', 'logIndex', 'coin', 'amount', 'blockNumber', 'transferId', 'accountId', 'txIndex'])
      .where('address', '=', address.toLowerCase())
      .where('kind', '=', 'deposit')
      .where('reportedAt', 'is', null)
      .where('transferId', 'is not', null)
      .orderBy('blockNumber')
      .orderBy('txIndex')
      .orderBy('logIndex')
      .execute()
    return rows.map((r) => ({ ...r, amount: BigInt(r.amount), transferId: r.transferId! }))
  },

  /** Marks a credited deposit's report handled; false when it was handled before. */
  async markReported(tx: Tx, transferId: string, now: Date): Promise<boolean> {
    const res = await tx
      .updateTable('chainEvents')
      .set({ reportedAt: now })
      .where('transferId', '=', transferId)
      .where('kind', '=', 'deposit')
      .where('reportedAt', 'is', null)
      .executeTakeFirst()
    return Number(res.numUpdatedRows) > 0
  },

  /** What the watcher recorded of transaction `txHash` as deposits (credited, or parked), by address. */
  depositsOfTx(ex: Executor, chainId: string, txHash: string) {
    return ex
      .selectFrom('chainEvents')
      .select([...recordedDepositColumns, 'blockHash', 'transferId', 'held', 'createdAt'])
      .where('chainId', '=', chainId)
      .where('txHash', '=', txHash.toLowerCase())
      .where('kind', '=', 'deposit')
      .orderBy('logIndex')
      .execute()
  },

  /** Whether the watcher credited a deposit of transaction `txHash` (to `address`, when given). */
  async credited(ex: Executor, chainId: string, txHash: string, address?: string): Promise<boolean> {
    let q = ex
      .selectFrom('chainEvents')
      .select('txHash')
      .where('chainId', '=', chainId)
      .where('txHash', '=', txHash.toLowerCase())
      .where('kind', '=', 'deposit')
      .where('held', 'is', null)
    if (address) q = q.where('address', '=', address.toLowerCase())
    return (await q.executeTakeFirst()) !== undefined
  },

  async audit(ex: Executor, action: string, meta: Record<string, unknown>, now: Date) {
    await ex
      .insertInto('auditLog')
      .values({ id: newId(), userId: null, action, ip: null, meta: json(meta), createdAt: now })
      .execute()
  },
}
