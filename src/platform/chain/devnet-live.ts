// The devnet's EVM as its callers reach it, one that can be replaced while the process runs: after
// a compaction the EVM is rebuilt from the compacted journal and swapped in (devnet-swap.ts), so
// that the memory of the blocks below the base is let go. Calls in flight on the EVM being
// replaced finish on it (it is closed once they have), a read that the closed EVM fails is asked
// again of the new one, and state changes are in the devnet's turn, which the swap holds.
//
// A rebuilt EVM holds the same blocks from the base up, with the same transactions, but their
// hashes differ (their parents do). The service and outside readers remember the hashes they saw
// (the deposit watcher's cursor, receipts' block hashes), so the hashes of the rebuilt blocks
// that existed before the swap are shown as they were: every 32-byte string of a result that is
// one of those blocks' new hash is answered as the old one, and the old one in a call's
// parameters is asked as the new one. Blocks mined after the swap have hashes of their own (the
// first one's parent is shown as the old hash of the head). A restart rebuilds the chain again
// and records the new hashes itself (devnet-compactor.ts `rebaseAfterReplay`).
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { DevnetEngine } from './devnet-bootstrap.ts'
import { STATEFUL } from './devnet-journal.ts'
import type { Eip1193 } from './rpc-server.ts'

/** One EVM and the hashes it shows in place of its own. */
export interface Generation {
  engine: DevnetEngine
  /** this EVM's block hash → the hash callers saw for the same block (lower case) */
  shown: Map<string, string>
  /** the reverse: a hash callers know → this EVM's */
  actual: Map<string, string>
}

interface Live extends Generation {
  inFlight: number
  retired: boolean
  drained: (() => void) | undefined
}

const HASH_LENGTH = 66

/** `value` with every 32-byte hex string found in `map` replaced (objects copied where changed). */
export function mapHashes(value: unknown, map: Map<string, string>): unknown {
  if (map.size === 0) return value
  if (typeof value === 'string')
    return value.length === HASH_LENGTH ? (map.get(value.toLowerCase()) ?? value) : value
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    value.forEach((v, i) => {
      const m = mapHashes(v, map)
      if (m !== v) {
        out ??= [...value]
        out[i] = m
      }
    })
    return out ?? value
  }
  if (value !== null && typeof value === 'object') {
    let out: Record<string, unknown> | undefined
    for (const [k, v] of Object.entries(value)) {
      const m = mapHashes(v, map)
      if (m !== v) {
        out ??= { ...(value as Record<string, unknown>) }
        out[k] = m
      }
    }
    return out ?? value
  }
  return value
}

let fullGc: (() => void) | undefined
/**
 * A full garbage collection. Closing an EDR provider only drops its reference: the EVM's native
 * memory goes when the JavaScript object holding it is collected, and V8, which does not count
 * that memory, may not run a full collection for a long time (the service's heap is small and
 * steady), leaving several replaced EVMs resident at once. One collection per swap lets each go.
 */
function collect() {
  if (!fullGc) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (exposed) fullGc = exposed
    else {
      setFlagsFromString('--expose-gc')
      fullGc = runInNewContext('gc') as () => void
    }
  }
  fullGc()
}

/** How long calls in flight on a replaced EVM may take before it is closed all the same. */
const DRAIN_MS = 30_000

export class LiveNode implements Eip1193 {
  private current: Live
  private readonly retiring = new Set<Promise<void>>()

  constructor(engine: DevnetEngine) {
    this.current = {
      engine,
      shown: new Map(),
      actual: new Map(),
      inFlight: 0,
      retired: false,
      drained: undefined,
    }
  }

  /** the EVM in use, with the hashes it shows */
  get generation(): Generation {
    return this.current
  }

  /** The EVM in use as it is, without the hashes shown in place of its own. */
  get raw(): Eip1193 {
    return this.current.engine.provider
  }

  async request(args: { method: string; params?: unknown[] }): Promise<unknown> {
    const g = this.current
    g.inFlight++
    try {
      const params = args.params === undefined ? undefined : (mapHashes(args.params, g.actual) as unknown[])
      const result = await g.engine.provider.request(
        params === undefined ? { method: args.method } : { ...args, params },
      )
      return mapHashes(result, g.shown)
    } catch (err) {
      // the EVM was replaced and closed under this read: the new one answers it
      if (g.retired && g !== this.current && !STATEFUL.has(args.method)) return this.request(args)
      throw err
    } finally {
      g.inFlight--
      if (g.retired && g.inFlight === 0) g.drained?.()
    }
  }

  /**
   * Puts `next` in place of the EVM in use (call it in the devnet's turn of state changes); the
   * old one is closed once the calls in flight on it are done, or after DRAIN_MS.
   */
  swap(next: Generation): void {
    const old = this.current
    this.current = { ...next, inFlight: 0, retired: false, drained: undefined }
    old.retired = true
    const closed = new Promise<void>((resolve) => {
      if (old.inFlight === 0) resolve()
      else {
        old.drained = resolve
        setTimeout(resolve, DRAIN_MS).unref()
      }
    })
      .then(() => old.engine.close())
      // the old generation's last references go with this closure: collected below
      .then(() => {
        setImmediate(collect)
      })
      .catch(() => {})
    this.retiring.add(closed)
    void closed.finally(() => this.retiring.delete(closed))
  }

  /** closes the EVM in use and waits for any replaced one to be closed */
  async close(): Promise<void> {
    await Promise.all(this.retiring)
    await this.current.engine.close()
  }
}
