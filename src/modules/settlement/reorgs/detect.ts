// Which recorded deposits a reorganisation took back: the deposits of the last `lookback` blocks
// up to the watcher's cursor whose block the chain now has with another hash (or not at all), and
// whose transaction is not on the canonical chain with its confirmations either (a transaction
// mined again in another block is not a finding). Reads the database and the chain only; the
// caller records what it answers in the transaction that halts the coins.
import type { Executor } from '../../../db/index.ts'
import type { ChainAdapter } from '../../../platform/chain/types.ts'
import { type RecordedDeposit, reorgRepo } from './repo.ts'
import { depositState } from './verify.ts'

/** blocks (and receipts) read at the same time */
const CONCURRENCY = 8

export async function vanishedDeposits(
  ex: Executor,
  chain: ChainAdapter,
  opts: { cursor: bigint; lookback: number; safeHead: bigint },
): Promise<RecordedDeposit[]> {
  const to = Number(opts.cursor)
  const from = Math.max(0, to - opts.lookback + 1)
  const recorded = await reorgRepo.depositsIn(ex, String(chain.chainId), from, to)
  if (recorded.length === 0) return []
  const numbers = [...new Set(recorded.map((d) => d.blockNumber))]
  const hashes = new Map<number, string | null>()
  for (let i = 0; i < numbers.length; i += CONCURRENCY)
    await Promise.all(
      numbers.slice(i, i + CONCURRENCY).map(async (n) => {
        hashes.set(n, (await chain.getBlock(BigInt(n)))?.hash.toLowerCase() ?? null)
      }),
    )
  const replaced = recorded.filter((d) => hashes.get(d.blockNumber) !== d.blockHash.toLowerCase())
  const out: RecordedDeposit[] = []
  for (let i = 0; i < replaced.length; i += CONCURRENCY)
    await Promise.all(
      replaced.slice(i, i + CONCURRENCY).map(async (d) => {
        const now = await depositState(chain, d, opts.safeHead)
        if (now.state !== 'confirmed') out.push(d)
      }),
    )
  return out.sort((a, b) => a.blockNumber - b.blockNumber || a.txHash.localeCompare(b.txHash))
}
