// Coin halts: a coin whose ledger no longer matches the chain (or whose chain reorganised deeper
// than the confirmations) stops being credited by the deposit watcher and sent by the outgoing
// sender, and withdrawals and payments in it are refused (503 COIN_HALTED), until an operator
// resumes it. Every halt and resume is logged, kept as history and written to the audit log as a
// system event (`coin.halted`, `coin.resumed`; listed by GET /v1/admin/audit).
import type { Logger } from 'pino'
import type { Db, Executor } from '../../../db/index.ts'
import type { ReadCache } from '../../../db/read-cache.ts'
import type { HaltReason } from '../../../db/tables/chain.ts'
import { errors } from '../../../http/errors.ts'
import type { Clock } from '../../../platform/clock.ts'
import { newId } from '../../../platform/crypto/ids.ts'
import { findingsRepo } from '../restore/repo.ts'
import { watcherRepo } from '../watcher/repo.ts'
import { type HaltRow, reconcileRepo } from './repo.ts'

export type { HaltReason }

export interface HaltInput {
  coin: string
  reason: HaltReason
  /** what was found (ids and amounts; never a secret) */
  details: Record<string, unknown>
  /** who halted it: `system` for the checks, an operator id otherwise */
  by?: string
}

export interface CoinHalt {
  id: string
  coin: string
  reason: HaltReason
  details: Record<string, unknown>
  haltedBy: string
  haltedAt: string
}

/** What `/ready` shows of settlement: the coins that are halted now. */
export interface SettlementReadiness {
  haltedCoins: { coin: string; reason: HaltReason; since: string }[]
}

const view = (h: HaltRow): CoinHalt => ({ ...h, haltedAt: h.haltedAt.toISOString() })

export class Halts {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      log: Logger
      /** the halted coins read outside a transaction, dropped by any write to `coin_halts` */
      cache?: ReadCache<string[]>
    },
  ) {}

  /** The open halts, oldest first. */
  async list(ex: Executor = this.deps.db): Promise<CoinHalt[]> {
    return (await reconcileRepo.openHalts(ex)).map(view)
  }

  /** References of the halted coins. */
  async haltedCoins(ex: Executor = this.deps.db): Promise<Set<string>> {
    const read = async () => (await reconcileRepo.openHalts(ex)).map((h) => h.coin)
    // Read in a transaction (where a request reserves value), the database itself answers.
    const { cache, db } = this.deps
    return new Set(cache && ex === db ? await cache.get('open', read) : await read())
  }

  async isHalted(coin: string, ex: Executor = this.deps.db): Promise<boolean> {
    return (await this.haltedCoins(ex)).has(coin)
  }

  /**
   * Throws 503 COIN_HALTED (`data.coin`) when the coin is halted: nothing may be withdrawn, paid or
   * sent in it for now. Called before a request moves value, and inside its transaction where the
   * transaction reserves it, so a halt that committed meanwhile is seen.
   */
  async assertNotHalted(coin: string, ex: Executor = this.deps.db): Promise<void> {
    if (await this.isHalted(coin, ex)) throw errors.coinHalted(coin)
  }

  /**
   * Halts a coin (inside the caller's transaction when `ex` is one). A coin already halted keeps
   * its first halt; returns whether this call halted it.
   */
  async halt(ex: Executor, input: HaltInput): Promise<boolean> {
    const row = await reconcileRepo.insertHalt(
      ex,
      {
        id: newId(),
        coin: input.coin,
        reason: input.reason,
        details: input.details,
        haltedBy: input.by ?? 'system',
      },
      this.deps.clock.now(),
    )
    if (row) {
      await watcherRepo.audit(
        ex,
        'coin.halted',
        { haltId: row.id, coin: row.coin, reason: row.reason, by: row.haltedBy, details: input.details },
        this.deps.clock.now(),
      )
      this.deps.log.error(
        { event: 'coin.halted', haltId: row.id, coin: row.coin, reason: row.reason, details: input.details },
        `COIN HALTED: crediting and sending of ${row.coin} stop until an operator resumes it (docs/operations.md)`,
      )
    }
    return row !== undefined
  }

  /**
   * Clears the coin's halt: crediting and sending resume. 404 when the coin is not halted. Inside
   * the caller's transaction when `ex` is one (an admin action and its audit row commit together).
   */
  async resume(coin: string, by: string, reason: string, ex: Executor = this.deps.db): Promise<CoinHalt> {
    if (!by.trim() || !reason.trim()) throw errors.validation('Who resumes the coin, and why, are required')
    // A transaction of the platform's own that the database does not know (a restore) is still
    // counted in the ledger's balances: resumed, it could be paid out again. Resolved first.
    const open = await findingsRepo.openOfCoin(ex, coin)
    if (open > 0)
      throw errors.named(
        'PLATFORM_TRANSFERS_OPEN',
        `${open} unknown platform transfer(s) of ${coin} are open: re-attach each or mark it external (GET /v1/admin/platform-transfers?status=open) before resuming the coin`,
        { open },
      )
    const row = await reconcileRepo.clearHalt(ex, coin, by, reason, this.deps.clock.now())
    if (!row) throw errors.notFound('halt of this coin')
    await watcherRepo.audit(
      ex,
      'coin.resumed',
      { haltId: row.id, coin: row.coin, haltReason: row.reason, by, reason },
      this.deps.clock.now(),
    )
    this.deps.log.warn(
      { event: 'coin.resumed', haltId: row.id, coin: row.coin, haltReason: row.reason, by, reason },
      `coin resumed: crediting and sending of ${row.coin} go on`,
    )
    return view(row)
  }

  /** For `/ready`: the coins halted now. */
  async readiness(): Promise<SettlementReadiness> {
    const halts = await reconcileRepo.openHalts(this.deps.db)
    return {
      haltedCoins: halts.map((h) => ({ coin: h.coin, reason: h.reason, since: h.haltedAt.toISOString() })),
    }
  }
}
