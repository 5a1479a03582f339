// Proof of reserves: snapshots taken on a schedule (a durable job, RESERVES_SNAPSHOT_INTERVAL) and
// on an operator's request, the published views of them, and each user's proof of inclusion.
import { errors } from '../../http/errors.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { kindOfLabel, type LeafKind, ratioOf } from './format.ts'
import { leafSalt, PADDING } from './merkle.ts'
import { reservesRepo, type SnapshotRow } from './repo.ts'
import { type SnapshotDeps, type TakenSnapshot, takeSnapshots } from './snapshot.ts'

export const SNAPSHOT_JOB = 'reserves.snapshot'

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'reserves.snapshot': { slot: number }
  }
}

export interface SnapshotView {
  id: string
  runId: string
  chainId: string
  coin: string
  asset: string
  decimals: number
  block: string
  blockHash: string
  takenAt: string
  root: string
  liabilitiesTotal: string
  reservesTotal: string
  ratio: string | null
  leafCount: number
  message: string
  signature: string
  attestationAddress: string
  trigger: 'schedule' | 'operator'
}

export interface ProofLeaf {
  kind: LeafKind
  id: string
  balance: string
  salt: string
  hash: string
  index: number
  path: { side: 'left' | 'right'; hash: string; sum: string }[]
}

export interface OperatorActor {
  userId: string
  sessionId: string
  requestId: string | null
  ip: string | null
}

function view(r: SnapshotRow): SnapshotView {
  return {
    id: r.id,
    runId: r.runId,
    chainId: r.chainId,
    coin: r.coin,
    asset: r.asset,
    decimals: r.decimals,
    block: String(r.blockNumber),
    blockHash: r.blockHash,
    takenAt: r.takenAt.toISOString(),
    root: r.rootHash,
    liabilitiesTotal: r.liabilitiesTotal,
    reservesTotal: r.reservesTotal,
    ratio: ratioOf(BigInt(r.reservesTotal), BigInt(r.liabilitiesTotal)),
    leafCount: r.leafCount,
    message: r.message,
    signature: r.signature,
    attestationAddress: r.attestationAddress,
    trigger: r.trigger,
  }
}

/** How many times a level of `n` nodes halves until one node is left. */
function depthOf(n: number): number {
  let d = 0
  for (let size = n; size > 1; size = Math.ceil(size / 2)) d++
  return d
}

export class ReservesService {
  readonly intervalMs: number

  constructor(
    private readonly deps: SnapshotDeps & {
      jobs: JobQueue
      intervalMs: number
      /** records an operator's snapshot in the admin audit */
      audit(actor: OperatorActor, details: Record<string, unknown>): Promise<void>
    },
  ) {
    this.intervalMs = deps.intervalMs
  }

  /** Registers the scheduled snapshot; `start` queues the first. */
  register() {
    this.deps.jobs.register(
      SNAPSHOT_JOB,
      async ({ slot }) => {
        // A snapshot that cannot be taken now (chain unreachable, watcher not started) is logged and
        // taken at the next slot; retries only cover a schedule that could not be written.
        try {
          await takeSnapshots(this.deps, { trigger: 'schedule', requestedBy: null })
        } catch (err) {
          this.deps.log.error(
            { event: 'reserves.snapshot_failed', err: err instanceof Error ? err.message : String(err) },
            'proof-of-reserves snapshot failed; the next one is at the next interval',
          )
        }
        await this.#schedule((slot + 1) * this.intervalMs)
      },
      { maxAttempts: 1000, deleteOnSuccess: true },
    )
  }

  async start() {
    try {
      await this.#schedule(this.deps.clock.now().getTime() + this.intervalMs)
    } catch (err) {
      this.deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'reserves snapshot not scheduled',
      )
    }
  }

  /** One snapshot per time slot, whichever worker (or restart) schedules it. */
  async #schedule(at: number) {
    const slot = Math.floor(at / this.intervalMs)
    await this.deps.jobs.enqueue(
      this.deps.db,
      SNAPSHOT_JOB,
      { slot },
      { runAt: new Date(slot * this.intervalMs), dedupeKey: `${SNAPSHOT_JOB}:${slot}` },
    )
  }

  /** Takes a snapshot of every coin now (an operator's request). */
  async snapshotNow(actor: OperatorActor, reason: string): Promise<SnapshotView[]> {
    const taken: TakenSnapshot[] = await takeSnapshots(this.deps, {
      trigger: 'operator',
      requestedBy: actor.userId,
    })
    await this.deps.audit(actor, {
      reason,
      snapshots: taken.map((t) => ({ id: t.id, coin: t.coin, block: t.block })),
    })
    const rows = await Promise.all(taken.map((t) => reservesRepo.get(this.deps.db, t.id)))
    return rows.filter((r) => r !== undefined).map(view)
  }

  /** The newest snapshot of each coin. */
  async latest(): Promise<SnapshotView[]> {
    return (await reservesRepo.latestPerCoin(this.deps.db)).map(view)
  }

  /** Snapshots newest first, for the history (one coin or all). */
  async history(limit: number, coin?: string): Promise<SnapshotView[]> {
    return (await reservesRepo.history(this.deps.db, limit, coin)).map(view)
  }

  /** A snapshot with its reserve addresses, their balances and proof-of-control signatures. */
  async get(id: string) {
    const row = await reservesRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('Snapshot')
    const reserves = await reservesRepo.addresses(this.deps.db, id)
    return { ...view(row), reserves }
  }

  /**
   * The caller's leaves in a snapshot (their wallet, the escrows they fund or are paid from), each
   * with its salt and the sibling path up to the root.
   */
  async proof(id: string, userId: string): Promise<{ snapshot: SnapshotView; leaves: ProofLeaf[] }> {
    const db = this.deps.db
    // Two reads: the snapshot with its sealed secret, then the caller's leaves with every node of
    // their paths (primary-key probes), whatever the size of the tree.
    const row = await reservesRepo.getWithSecret(db, id)
    if (!row) throw errors.notFound('Snapshot')
    const depth = depthOf(row.leafCount)
    const rows = await reservesRepo.leavesWithPaths(db, id, userId, depth)
    const secret = Buffer.from(this.deps.secrets.open(row.sealedSecret, `reserves:${id}`), 'hex')
    const mine = new Map<number, string>()
    const nodes = new Map<string, { hash: string; sum: string }>()
    for (const r of rows) {
      mine.set(r.leafIdx, r.label)
      if (r.hash !== null && r.sum !== null) nodes.set(`${r.level}:${r.idx}`, { hash: r.hash, sum: r.sum })
    }
    const leaves = [...mine].map(([idx, label]): ProofLeaf => {
      const l = { idx, label }
      const own = nodes.get(`0:${l.idx}`)
      if (!own) throw new Error(`snapshot ${id} lacks leaf ${l.idx}`)
      return {
        kind: kindOfLabel(l.label),
        id: l.label,
        balance: own.sum,
        salt: `0x${leafSalt(secret, row.coin, l.label).toString('hex')}`,
        hash: `0x${own.hash}`,
        index: l.idx,
        path: Array.from({ length: depth }, (_, d) => {
          const i = (l.idx >> d) ^ 1
          const n = nodes.get(`${d}:${i}`)
          return {
            side: i < l.idx >> d ? ('left' as const) : ('right' as const),
            hash: n ? `0x${n.hash}` : `0x${PADDING.hash.toString('hex')}`,
            sum: n ? n.sum : '0',
          }
        }),
      }
    })
    leaves.sort((a, b) => a.index - b.index)
    return { snapshot: view(row), leaves }
  }
}
