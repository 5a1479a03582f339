// What the settlement module tells the embedded dev chain's journal compaction, through the
// composition root: how far its readers are done with the chain's history (the deposit watcher's
// cursor, the transactions of outgoing transfers still waiting for a receipt), the block numbers
// whose hashes it keeps, and, after a rebuild of a compacted chain, those blocks' new hashes.
import type { Db, Executor } from '../../db/index.ts'
import { DEFAULT_WATCHER_OPTIONS } from './watcher/job.ts'
import { watcherRepo } from './watcher/repo.ts'

export function chainHistory(db: Db, lookback = DEFAULT_WATCHER_OPTIONS.reorgLookbackBlocks) {
  return {
    async readers(chainId: string): Promise<{ cursor: bigint | null; openTxHashes: string[] }> {
      const cursor = await watcherRepo.cursor(db, chainId)
      const open = await db
        .selectFrom('outgoingTransactions as t')
        .innerJoin('outgoingTransfers as o', 'o.id', 't.transferId')
        .select('t.txHash')
        .where('o.chainId', '=', chainId)
        .where('o.status', 'in', ['signed', 'sent'])
        .execute()
      return { cursor: cursor?.number ?? null, openTxHashes: open.map((r) => r.txHash) }
    },

    /** the cursor's block and the blocks of the deposits a reorganisation check would look at */
    async recordedBlocks(chainId: string): Promise<bigint[]> {
      const cursor = await watcherRepo.cursor(db, chainId)
      if (!cursor) return []
      const rows = await db
        .selectFrom('chainEvents')
        .select('blockNumber')
        .distinct()
        .where('chainId', '=', chainId)
        .where('blockNumber', '>', Number(cursor.number) - lookback)
        .where('blockNumber', '<=', Number(cursor.number))
        .execute()
      return [cursor.number, ...rows.map((r) => BigInt(r.blockNumber)).filter((n) => n !== cursor.number)]
    },

    /** records the rebuilt chain's hashes of those blocks (in the caller's transaction) */
    async rebase(tx: Executor, chainId: string, hashes: Map<bigint, string>): Promise<void> {
      for (const [n, hash] of hashes) {
        await tx
          .updateTable('chainCursors')
          .set({ blockHash: hash })
          .where('chainId', '=', chainId)
          .where('blockNumber', '=', Number(n))
          .execute()
        await tx
          .updateTable('chainEvents')
          .set({ blockHash: hash })
          .where('chainId', '=', chainId)
          .where('blockNumber', '=', Number(n))
          .execute()
      }
    },
  }
}

export type ChainHistory = ReturnType<typeof chainHistory>
