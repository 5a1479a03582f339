// Transactions that PostgreSQL aborted for a deadlock (40P01) or a serialization failure (40001)
// are run again, a bounded number of times with a random pause, so that such an abort never
// reaches a client. It is safe for every transaction of this service because none has an effect
// outside the database (no network call inside a transaction): an aborted one left nothing behind,
// and its callback simply runs again on a fresh transaction.
import { Kysely, type KyselyConfig, type TransactionBuilder } from 'kysely'

/** SQLSTATEs after which the whole transaction may be run again. */
export const RETRYABLE_CODES = {
  '40P01': 'deadlock',
  '40001': 'serialization',
} as const
type RetryReason = (typeof RETRYABLE_CODES)[keyof typeof RETRYABLE_CODES]

export interface RetryPolicy {
  /** further runs after the first one aborted */
  retries: number
  /** the pause before retry n is random in [0, baseDelayMs * 2^(n-1)) */
  baseDelayMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 4, baseDelayMs: 10 }

/** Counts of retried transactions by reason, and of those that still failed after the last one. */
export class RetryStats {
  readonly retried: Record<RetryReason, number> = { deadlock: 0, serialization: 0 }
  readonly exhausted: Record<RetryReason, number> = { deadlock: 0, serialization: 0 }
}

/** The reason an error allows a retry of its transaction, if it does. */
export function retryReason(err: unknown): RetryReason | undefined {
  const code = (err as { code?: unknown } | null)?.code
  return typeof code === 'string' && code in RETRYABLE_CODES
    ? RETRYABLE_CODES[code as keyof typeof RETRYABLE_CODES]
    : undefined
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `attempt` again while it fails with a retryable error, up to the policy's limit. */
export async function withRetries<T>(
  policy: RetryPolicy,
  stats: RetryStats,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let run = 0; ; run++) {
    try {
      return await attempt()
    } catch (err) {
      const reason = retryReason(err)
      if (!reason) throw err
      if (run >= policy.retries) {
        stats.exhausted[reason]++
        throw err
      }
      stats.retried[reason]++
      await pause(Math.random() * policy.baseDelayMs * 2 ** run)
    }
  }
}

/** A transaction builder whose `execute` runs the callback again after a retryable abort. */
function retrying<DB>(
  inner: TransactionBuilder<DB>,
  policy: RetryPolicy,
  stats: RetryStats,
): TransactionBuilder<DB> {
  const builder = {
    setAccessMode: (mode: Parameters<TransactionBuilder<DB>['setAccessMode']>[0]) =>
      retrying(inner.setAccessMode(mode), policy, stats),
    setIsolationLevel: (level: Parameters<TransactionBuilder<DB>['setIsolationLevel']>[0]) =>
      retrying(inner.setIsolationLevel(level), policy, stats),
    execute: <T>(callback: Parameters<TransactionBuilder<DB>['execute']>[0]) =>
      withRetries(policy, stats, () => inner.execute(callback as never) as Promise<T>),
  }
  // TransactionBuilder keeps its settings in a private field, so a structural copy is cast.
  return builder as unknown as TransactionBuilder<DB>
}

/** Kysely whose `transaction()` retries deadlocks and serialization failures (see above). */
export class RetryingKysely<DB> extends Kysely<DB> {
  readonly retryStats: RetryStats
  readonly #policy: RetryPolicy

  constructor(config: KyselyConfig, policy: RetryPolicy = DEFAULT_RETRY_POLICY, stats = new RetryStats()) {
    super(config)
    this.#policy = policy
    this.retryStats = stats
  }

  override transaction(): TransactionBuilder<DB> {
    return retrying(super.transaction(), this.#policy, this.retryStats)
  }
}
