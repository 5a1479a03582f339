// Which head the confirmations count from, when several providers answer differently: the lowest
// head among the providers that are healthy (answered in time, and not far behind the others),
// never lower than the head used before. `chooseHead` is the pure rule; `headReader` asks the
// providers and keeps the last head.
import type { PublicClient } from 'viem'
import { ChainError, type Confirmations } from './types.ts'

/** a provider more than this many blocks behind the highest head is lagging (at least the confirmations) */
const HEAD_LAG = 16n
/** how long a provider may take to say its head before it counts as unhealthy for that read */
const HEAD_TIMEOUT_MS = 3_000

export interface HeadChoice {
  /** the head to count confirmations from; null when no provider answered */
  head: bigint | null
  /** indexes of the providers whose answer counted */
  healthy: number[]
  /** indexes of the providers that answered but lag more than `maxLag` behind the highest */
  lagging: number[]
  /** the lowest healthy head was below the last head used: ignored, the last head is kept */
  wentBack: boolean
}

/**
 * `answers[i]` is provider i's head (null: it failed or timed out). A provider more than `maxLag`
 * blocks behind the highest answer is lagging (left out: a stale node must not stall deposits);
 * among the others the lowest head counts, so a provider running ahead never does. A head below
 * `last` (a node that went backwards, or a lower one than before) is not acted on: `last` is kept.
 *
 * Why a provider far ahead cannot cause a credit too early: it makes the others look lagging only
 * when it claims more than `maxLag` blocks beyond them; with `maxLag` at least the confirmations,
 * the blocks to read then do not exist yet on honest nodes, so nothing is read until they do.
 */
export function chooseHead(
  answers: readonly (bigint | null)[],
  o: { maxLag: bigint; last?: bigint },
): HeadChoice {
  const answered = answers.flatMap((h, i) => (h === null ? [] : [{ h, i }]))
  if (answered.length === 0) return { head: o.last ?? null, healthy: [], lagging: [], wentBack: false }
  const sorted = answered.map((a) => a.h).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const top = sorted[sorted.length - 1]!
  const healthy = answered.filter((a) => a.h + o.maxLag >= top)
  const lagging = answered.filter((a) => a.h + o.maxLag < top).map((a) => a.i)
  const lowest = sorted.find((h) => h + o.maxLag >= top)!
  const wentBack = o.last !== undefined && lowest < o.last
  return {
    head: wentBack ? o.last! : lowest,
    healthy: healthy.map((a) => a.i),
    lagging,
    wentBack,
  }
}

/** The newest block with `confirmations` blocks on it, itself included (0 and 1 both: the head). */
export function confirmedBlock(head: bigint, confirmations: number): bigint {
  const behind = BigInt(Math.max(confirmations, 1) - 1)
  return head > behind ? head - behind : 0n
}

/** one provider's head (`latest` or `finalized`), null when it fails or takes too long */
async function headOf(p: PublicClient, tag: 'latest' | 'finalized'): Promise<bigint | null> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), HEAD_TIMEOUT_MS)
  })
  const read = (async () => {
    try {
      if (tag === 'latest') return await p.getBlockNumber({ cacheTime: 0 })
      return (await p.getBlock({ blockTag: 'finalized' })).number
    } catch {
      return null
    }
  })()
  try {
    return await Promise.race([read, late])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The adapter's `confirmedHead`: every provider is asked for its head at once; the choice is
 * `chooseHead`'s, remembered per tag so that it never goes back. With `finalized` the chain's
 * finalized block is the answer (no provider has one: UNAVAILABLE, the chain needs a number).
 */
export function headReader(
  providers: readonly PublicClient[],
  onWarning?: (message: string, details: Record<string, unknown>) => void,
): (confirmations: Confirmations) => Promise<bigint> {
  const last: { latest?: bigint; finalized?: bigint } = {}
  return async (confirmations) => {
    const tag = confirmations === 'finalized' ? 'finalized' : 'latest'
    const answers = await Promise.all(providers.map((p) => headOf(p, tag)))
    const depth = confirmations === 'finalized' ? 0 : confirmations
    const maxLag = HEAD_LAG > BigInt(depth) ? HEAD_LAG : BigInt(depth)
    const choice = chooseHead(answers, { maxLag, ...(last[tag] !== undefined ? { last: last[tag] } : {}) })
    if (choice.head === null || choice.healthy.length === 0)
      throw new ChainError(
        'UNAVAILABLE',
        tag === 'finalized'
          ? 'no provider answered a finalized block (a chain without one needs CONFIRMATIONS as a number)'
          : 'no provider answered its head',
      )
    if (choice.lagging.length > 0 || choice.wentBack)
      onWarning?.(choice.wentBack ? 'a provider head went backwards: ignored' : 'providers lagging', {
        tag,
        heads: answers.map((h) => (h === null ? null : h.toString())),
        lagging: choice.lagging,
        used: choice.head.toString(),
      })
    last[tag] = choice.head
    return tag === 'finalized' ? choice.head : confirmedBlock(choice.head, depth)
  }
}
