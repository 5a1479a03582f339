// Shapes of outgoing chain transfers: the intent a caller enqueues, the view handed back, the
// sender's options, and the shared context the steps (enqueue, runner, gas, nonces) work in.
import type { Logger } from 'pino'
import type { Db, Executor } from '../../../db/index.ts'
import type { OutgoingStatus } from '../../../db/tables/withdrawals.ts'
import type { ChainAdapter, ChainSigner, FeeEstimate } from '../../../platform/chain/types.ts'
import type { Clock } from '../../../platform/clock.ts'
import type { JobQueue } from '../../../platform/jobs/queue.ts'
import type { Kept } from '../../../platform/kept.ts'
import type { Turns } from '../../../platform/lanes.ts'
import type { Ledger } from '../../ledger/types.ts'
import type { KeyStore } from '../keys.ts'
import type { Halts } from '../reconcile/halts.ts'
import type { DepositWatcher } from '../watcher/job.ts'
import type { OutgoingRow } from './repo.ts'

export const OUTGOING_JOB = 'outgoing.send'
export const GAS_TOPUP_PURPOSE = 'gas.topup'
/** The job of a gas top-up's runs: slots of its own (`topUpConcurrency`), so that a backlog of
 * transfers, many of them waiting for top-ups, never holds up the top-ups themselves. */
export const TOPUP_JOB = 'outgoing.topup'
/** The job kinds that run transfers (each transfer's runs are of one of them, by its purpose). */
export const TRANSFER_JOBS = [OUTGOING_JOB, TOPUP_JOB] as const
/** The job kind of a transfer's runs. */
export const jobOf = (purpose: string) => (purpose === GAS_TOPUP_PURPOSE ? TOPUP_JOB : OUTGOING_JOB)

/**
 * What an outgoing transfer can be for. Each purpose has exactly one module that enqueues it and
 * hands its outcome handlers over (`outgoing.handle`); start-up fails when one has none.
 */
export const TRANSFER_PURPOSES = ['withdrawal', 'escrow.leg', 'escrow.pay', 'fee.sweep', 'gas.topup'] as const
export type TransferPurpose = (typeof TRANSFER_PURPOSES)[number]

/** Statuses after which a transfer never changes again. */
export const FINAL: readonly OutgoingStatus[] = ['completed', 'failed']
/** Statuses of a transfer still in flight (the partial index `outgoing_transfers_open`'s). */
export const OPEN: OutgoingStatus[] = ['queued', 'signed', 'sent']
export const isFinal = (status: OutgoingStatus) => FINAL.includes(status)

/** Who signs: a custodial key (by owner) or one of the platform's own signers. */
export type OutgoingFrom =
  | { kind: 'user' | 'escrow' | 'treasury'; ownerId: string }
  | { kind: 'platform'; signer: PlatformSigner }

export type PlatformSigner = 'gasWallet' | 'treasury'

export function platformSigner(chain: ChainAdapter, name: PlatformSigner): ChainSigner {
  return name === 'gasWallet' ? chain.gasWallet : chain.treasury
}

export interface EnqueueTransfer {
  /** what the transfer is for; selects the outcome handlers */
  purpose: TransferPurpose
  /** the caller's record (withdrawal id, escrow leg id); handed back to the handlers */
  referenceId: string
  /** unique per transfer: enqueueing the same key again returns the first transfer */
  key: string
  from: OutgoingFrom
  /** coin reference */
  coin: string
  /** destination address (any case; validated) */
  to: string
  /** base units, > 0 */
  amount: bigint
  /**
   * A pending ledger hold (same coin, no timeout) that reserves exactly `amount`: on success
   * settlement posts this hold to the chain's clearing account; on failure it voids it. Its
   * account is the funding account. Required for custodial senders (every reservation is a hold);
   * refused for the platform signers (off-ledger wallets). Anything else a caller reserves (a
   * withdrawal's fee) is a hold of the caller's own, which its outcome handlers post or void.
   */
  fundingHoldId?: string
  /** where the deposit watcher credits what arrives when `to` is a custodial address (default:
   * the address owner's account) */
  creditAccountId?: string
  /** free data kept with the transfer and handed back to the handlers */
  meta?: Record<string, unknown>
}

/** The payload of the `outgoing.send` job. */
export interface OutgoingSendJob {
  id: string
}

/** A transfer as handlers see it. */
export interface OutgoingView {
  id: string
  purpose: string
  referenceId: string
  coin: string
  from: string
  to: string
  amount: bigint
  status: OutgoingStatus
  /** failed attempts so far */
  failures: number
  errors: string[]
  nonce: number | null
  txHash: string | null
  meta: Record<string, unknown>
}

/** Thrown by the test hook: behaves like the worker process dying at that point. */
export class SimulatedCrash extends Error {
  constructor(readonly at: CrashPoint) {
    super(`simulated crash ${at}`)
    this.name = 'SimulatedCrash'
  }
}

/** Where a test may "kill" the worker: before signing, after the signed transaction was stored,
 * after it was broadcast, after a replacement was stored (not yet broadcast), after its receipt
 * was read, inside the settlement after the funding hold was posted or voided and before the
 * transfer's status changed (the settlement's transaction then rolls back as a whole), and after
 * the settlement committed (its report not yet run). */
export type CrashPoint =
  | 'before-sign'
  | 'after-sign'
  | 'after-broadcast'
  | 'after-replace'
  | 'after-receipt'
  | 'after-hold-post'
  | 'after-hold-void'
  | 'after-settle'

/** A failure that retrying cannot fix. */
export class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export interface SenderOptions {
  /** failed attempts before a transfer fails for good (a provider's transient errors do not count) */
  maxFailures: number
  /** backoff before retry n is baseDelayMs × 2^(n-1), capped at maxDelayMs */
  baseDelayMs: number
  maxDelayMs: number
  /** the longest wait between two tries while the provider is unreachable or erring (transient
   * errors back off from `baseDelayMs` up to this, and are retried for as long as they last) */
  transientMaxDelayMs: number
  /** the first look for the receipt of a broadcast transaction not mined at once, and the shortest
   * time between two looks (each look is a run of its own; no run waits for the chain) */
  receiptCheckMs: number
  /** how long a transfer whose gas top-up landed but is not credited yet sleeps between checks */
  gasWaitMs: number
  /** the longest a transfer waiting for its address's gas top-up sleeps: the top-up's settlement
   * wakes every transfer of the address still without gas, so this only bounds a missed wake */
  topUpWaitMs: number
  /** a signed transfer whose fate the chain cannot tell yet (retries used up) is re-checked this often */
  stuckRecheckMs: number
  /** a transaction not mined this long after it was signed is replaced (same nonce, fees +12.5 %
   * at least, and at least the current estimate) */
  stuckAfterMs: number
  /** replacements of one transfer at most (each raises the fees again) */
  maxReplacements: number
  /** the longest time between two looks at a pending transaction (a look comes after a tenth of
   * its age, between `receiptCheckMs` and this) */
  pendingRecheckMs: number
  /** a top-up brings the gas of every transfer queued at the address plus this many, less one,
   * times the gas of the transfer that asked for it (and never less than this many times its
   * missing gas) */
  topUpFactor: bigint
  /** sends one worker process runs at once (slots of their own, apart from other jobs) */
  concurrency: number
  /** gas top-ups one worker process runs at once (slots of their own, apart from other sends) */
  topUpConcurrency: number
  /** a transfer waiting for the network fee to fall under its coin's maximum looks again after this */
  feeRecheckMs: number
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  maxFailures: 5,
  baseDelayMs: 2000,
  maxDelayMs: 5 * 60_000,
  transientMaxDelayMs: 60_000,
  receiptCheckMs: 2_000,
  gasWaitMs: 1000,
  topUpWaitMs: 30_000,
  stuckRecheckMs: 10 * 60_000,
  stuckAfterMs: 90_000,
  maxReplacements: 5,
  pendingRecheckMs: 15_000,
  topUpFactor: 20n,
  concurrency: 8,
  topUpConcurrency: 2,
  feeRecheckMs: 15_000,
}

/** Fees, gas limit and the most the gas can cost, worked out before signing. */
export interface Prepared {
  fees: FeeEstimate
  gas: bigint
  maxFee: bigint
}

export interface SenderDeps {
  db: Db
  chain: ChainAdapter
  clock: Clock
  log: Logger
  jobs: JobQueue
  ledger: Ledger
  /** the custodial keys: a custodial sender's address, and its private key for signing */
  keys: Pick<KeyStore, 'address' | 'privateKey'>
  /** the deposit watcher: every signed transaction is registered with it before it is broadcast
   * (so it is not taken for an external withdrawal); a landed gas top-up is credited by it */
  watcher: Pick<DepositWatcher, 'registerOwn' | 'requestScan' | 'reports'>
  /** coins halted by reconciliation: nothing new is signed in them */
  halts: Pick<Halts, 'isHalted'>
  /** tests only: called at each crash point; throwing SimulatedCrash "kills" the worker there */
  crashHook?: CrashHook | undefined
}

export type CrashHook = (at: CrashPoint, transferId: string) => void | Promise<void>

/**
 * A run's own state: `start` while the transfer's start (its first pick-up) is still to be marked
 * and reported. That is done in the run's first write (the gas reservation, the signing, the
 * deferral or the failed attempt), not in a transaction of its own. Its broadcast and its job's
 * success are recorded by its last transaction.
 */
export interface RunState {
  /** the transfer */
  id: string
  start: boolean
  /** when the run first broadcast the signed transaction: recorded (signed → sent) by the run's
   * last transaction (`lastTransaction`), not by a statement of its own */
  sentAt?: Date | undefined
  /** a job's run: records the job done in the run's last transaction (`lastTransaction`) */
  finishIn?: ((tx: Executor) => Promise<void>) | undefined
  /** true while the last transaction that recorded the job done has not committed */
  unfinished?: boolean
}

/** What every step of the sender works with (the sender itself implements it). */
export interface SenderContext {
  readonly deps: SenderDeps
  readonly options: SenderOptions
  /** the chain id as stored in the tables */
  readonly chainKey: string
  /** ids of the ledger accounts the sender books to (an account's id never changes once made),
   * kept once a transaction that made or found them committed (`AccountIds`) */
  readonly accountIds: Kept<string>
  /** the runs of this process that lock an address's nonce row (gas reservation, signing) take
   * the address's turn first: they wait here, holding nothing, rather than on the row, each with a
   * pooled connection held */
  readonly turns: Turns
  /** false when the handlers of `purpose` leave the event `kind` unhandled (an optional
   * `started` or `attemptFailed`): no report job is written for it */
  reports(purpose: string, kind: string): boolean
  /** reads a transfer (tests wrap it to interleave workers) */
  load(ex: Executor, id: string, forUpdate?: boolean): Promise<OutgoingRow | undefined>
  /** tests only: a point where a worker may "die" */
  crashPoint(at: CrashPoint, id: string): Promise<void>
}

export const json = (value: unknown) =>
  JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

export function viewOf(r: OutgoingRow): OutgoingView {
  return {
    id: r.id,
    purpose: r.purpose,
    referenceId: r.referenceId,
    coin: r.coin,
    from: r.fromAddress,
    to: r.toAddress,
    amount: BigInt(r.amount),
    status: r.status,
    failures: r.failures,
    errors: r.errors ?? [],
    nonce: r.nonce === null ? null : Number(r.nonce),
    txHash: r.txHash,
    meta: r.meta ?? {},
  }
}
