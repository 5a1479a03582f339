// The platform's fees for operators: per coin, what the fee address holds (the fee account), what a
// sweep in flight reserves, what can be swept now, where it would go, and the latest sweeps; and
// the sweep itself. A sweep is an ordinary outgoing transfer of settlement from the fee address to
// the coin's cold address: in one transaction a ledger hold reserves the amount on the fee account
// and the transfer intent funded by that hold is queued (as a withdrawal does); settlement posts
// the hold when the transfer is mined and voids it when it fails for good, and pays its gas from
// the platform value parked at the fee address (topped up by the gas wallet when short). One sweep
// per coin is in flight at a time.
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { OutgoingStatus } from '../../db/tables/withdrawals.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { ChainAdapter, ChainCoin } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type { Ledger } from '../ledger/types.ts'
import type { Halts, KeyStore, OutgoingSender } from '../settlement/types.ts'
import { type ColdAddresses, coinVariable } from './cold-address.ts'
import { FEE_SWEEP_PURPOSE, sweepOutcomes } from './outcomes.ts'
import { type FeeSweepRow, feeRepo } from './repo.ts'
import { FEE_VAULT_KIND, FEE_VAULT_OWNER } from './vault.ts'

/** Sweeps shown per coin in the overview. */
export const RECENT_SWEEPS = 10

export type SweepStatus = 'pending' | 'sent' | 'confirmed' | 'failed'

export interface SweepInput {
  coin: string
  /** base units as a decimal string; all that can be swept when absent */
  amount?: string | undefined
  reason: string
  /** the request's Idempotency-Key: a request run twice sweeps once */
  requestKey?: string | undefined
}

export interface FeeDeps {
  db: Db
  clock: Clock
  log: Logger
  chain: Pick<ChainAdapter, 'coins'>
  /** whether each coin is active now (operators' settings over the configuration) */
  active: (coin: string) => boolean
  ledger: Ledger
  outgoing: Pick<OutgoingSender, 'enqueue' | 'handle' | 'statuses'>
  keys: Pick<KeyStore, 'byAddress'>
  halts: Pick<Halts, 'haltedCoins' | 'isHalted'>
  cold: ColdAddresses
  /** the fee address (lower case) */
  feeAddress: string
}

/** A refusal with its named code, and a `cause` (the older way programs told them apart). */
const refuse = (
  code:
    | 'NO_COLD_ADDRESS'
    | 'COLD_ADDRESS_REFUSED'
    | 'HALTED_COIN_REFUSED'
    | 'SWEEP_IN_FLIGHT'
    | 'INSUFFICIENT_BALANCE',
  cause: string,
  message: string,
  extra = {},
) => new AppError(code, message, { cause, ...extra })

export class FeeService {
  constructor(private readonly deps: FeeDeps) {
    deps.outgoing.handle(FEE_SWEEP_PURPOSE, sweepOutcomes(deps))
  }

  get feeAddress() {
    return this.deps.feeAddress
  }

  #coin(reference: string): ChainCoin {
    const ref = reference.trim().toLowerCase()
    const coin = this.deps.chain.coins.find((c) => c.reference === ref)
    if (!coin) throw errors.field('/coin', `unknown coin reference "${reference.slice(0, 40)}"`)
    return coin
  }

  #text(amount: bigint, coin: ChainCoin) {
    return `${formatUnits(amount, coin.decimals)} ${coin.symbol}`
  }

  #view(r: FeeSweepRow, statuses: Map<string, OutgoingStatus>) {
    // (a coin no longer configured still shows its sweeps, in base units)
    const coin = this.deps.chain.coins.find((c) => c.reference === r.coin)
    const transferStatus = r.outgoingId ? (statuses.get(r.outgoingId) ?? null) : null
    return {
      _id: r.id,
      coin: r.coin,
      amount: String(r.amount),
      amountText: coin ? this.#text(BigInt(r.amount), coin) : `${r.amount} ${r.coin}`,
      from: r.fromAddress,
      to: r.toAddress,
      status: statusOf(r.status, transferStatus),
      txHash: r.txHash,
      transferId: r.outgoingId,
      transferStatus,
      failures: r.failures,
      lastError: r.lastError,
      reason: r.reason,
      requestedBy: r.requestedBy,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      settledAt: r.settledAt,
    }
  }

  async #views(rows: FeeSweepRow[]) {
    const statuses = await this.deps.outgoing.statuses(
      this.deps.db,
      rows.flatMap((r) => (r.outgoingId ? [r.outgoingId] : [])),
    )
    return rows.map((r) => this.#view(r, statuses))
  }

  /** One sweep (404 when unknown). */
  async sweepById(id: string) {
    const row = await feeRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('fee sweep')
    return (await this.#views([row]))[0]!
  }

  /** Per coin: the fee balance, what is reserved and sweepable, the cold address, recent sweeps. */
  async overview() {
    const { db, ledger } = this.deps
    const [accounts, halted, credited, swept, withdrawalFees, parked] = await Promise.all([
      ledger.accountsOf(db, FEE_VAULT_KIND, FEE_VAULT_OWNER),
      this.deps.halts.haltedCoins(),
      feeRepo.credited(db),
      feeRepo.swept(db),
      feeRepo.withdrawalFees(db),
      feeRepo.parked(db),
    ])
    const coins = []
    for (const coin of this.deps.chain.coins) {
      const ref = coin.reference
      const account = accounts[ref]
      const balance = account?.balance ?? 0n
      const reserved = account?.held ?? 0n
      const sweeps = await this.#views(await feeRepo.recent(db, ref, RECENT_SWEEPS))
      const cold = this.deps.cold.of(ref)
      coins.push({
        coin: ref,
        symbol: coin.symbol,
        decimals: coin.decimals,
        isToken: coin.isToken,
        active: this.deps.active(ref),
        halted: halted.has(ref),
        balance: balance.toString(),
        reserved: reserved.toString(),
        sweepable: (balance - reserved).toString(),
        sweepableText: this.#text(balance - reserved, coin),
        collected: (credited.get(ref) ?? 0n).toString(),
        swept: (swept.get(ref) ?? 0n).toString(),
        withdrawalFees: (withdrawalFees.get(ref) ?? 0n).toString(),
        parkedAtAddresses: (parked.get(ref) ?? 0n).toString(),
        coldAddress: cold?.address ?? null,
        coldAddressSource: cold?.source ?? null,
        inFlight: sweeps.find((s) => s.status === 'pending' || s.status === 'sent') ?? null,
        sweeps,
      })
    }
    return { feeAddress: this.deps.feeAddress, coins }
  }

  /**
   * Sweeps `amount` (default: all that can be swept) of the coin's fees to its cold address. The
   * hold, the sweep, the transfer intent and `audit` are written in one transaction; nothing is
   * written when a check fails.
   */
  async sweep(
    actorId: string,
    input: SweepInput,
    audit: (
      tx: Tx,
      sweep: { id: string; coin: string; amount: bigint; to: string; sweepable: bigint; transferId: string },
    ) => Promise<void>,
  ) {
    const { db, ledger, outgoing, clock, log } = this.deps
    const coin = this.#coin(input.coin)
    let asked: bigint | undefined
    if (input.amount !== undefined) {
      asked = BigInt(input.amount)
      if (asked <= 0n) throw errors.field('/amount', 'must be more than 0 (base units)')
    }
    const cold = this.deps.cold.of(coin.reference)
    if (!cold)
      throw refuse(
        'NO_COLD_ADDRESS',
        'NO_COLD_ADDRESS',
        `No cold address is configured for ${coin.symbol}: set FEE_SWEEP_ADDRESS (every coin) or ${coinVariable(coin.reference)}`,
      )
    if (await this.deps.halts.isHalted(coin.reference))
      throw refuse(
        'HALTED_COIN_REFUSED',
        'COIN_HALTED',
        `${coin.symbol} is halted: nothing is sent in it until it is resumed`,
      )
    const requestKey = input.requestKey
      ? createHash('sha256').update(`${actorId}:${input.requestKey}`).digest('hex')
      : null

    const id = await db.transaction().execute(async (tx) => {
      if (requestKey) {
        // The same request run again (its first run committed): answer its sweep, move nothing.
        const first = await feeRepo.byRequestKey(tx, requestKey)
        if (first) {
          if (first.coin !== coin.reference || (asked !== undefined && BigInt(first.amount) !== asked))
            throw errors.named(
              'IDEMPOTENCY_KEY_REUSED',
              'This Idempotency-Key was used with a different request',
            )
          return first.id
        }
      }
      const why = await this.deps.cold.refusal(tx, cold.address, this.deps.keys, this.deps.feeAddress)
      if (why)
        throw refuse(
          'COLD_ADDRESS_REFUSED',
          'COLD_ADDRESS_REFUSED',
          `The cold address of ${coin.symbol} (${cold.source}) is refused: ${why}`,
        )
      const accountId = await ledger.ensureAccount(tx, FEE_VAULT_KIND, FEE_VAULT_OWNER, coin.reference)
      // The fee account's row lock serialises sweeps of one coin: one is in flight at a time (only
      // sweeps hold this account, so a held amount is a sweep not settled yet).
      const account = (await ledger.account(tx, accountId, { forUpdate: true }))!
      if (account.held > 0n) {
        const open = (await feeRepo.recent(tx, coin.reference, 1))[0]
        throw refuse(
          'SWEEP_IN_FLIGHT',
          'SWEEP_IN_FLIGHT',
          `A sweep of ${coin.symbol} is in flight; wait until it is confirmed or failed`,
          open ? { sweepId: open.id } : {},
        )
      }
      const sweepable = account.available
      if (sweepable <= 0n)
        throw refuse(
          'INSUFFICIENT_BALANCE',
          'NOTHING_TO_SWEEP',
          `There are no ${coin.symbol} fees to sweep`,
          { sweepable: '0' },
        )
      const amount = asked ?? sweepable
      if (amount > sweepable)
        throw refuse(
          'INSUFFICIENT_BALANCE',
          'OVER_SWEEPABLE',
          `At most ${this.#text(sweepable, coin)} can be swept now`,
          { sweepable: sweepable.toString() },
        )
      const sweepId = newId()
      const hold = await ledger.hold(tx, {
        key: `fee-sweep:${sweepId}:hold`,
        coin: coin.reference,
        account: accountId,
        amount,
        kind: 'fee.sweep',
        description: `Fee sweep ${sweepId} to ${cold.address}`,
      })
      const now = clock.now()
      await feeRepo.insert(tx, {
        id: sweepId,
        coin: coin.reference,
        amount: amount.toString(),
        fromAddress: this.deps.feeAddress,
        toAddress: cold.address,
        holdId: hold.id,
        requestedBy: actorId,
        reason: input.reason,
        requestKey,
        createdAt: now,
        updatedAt: now,
      })
      const sent = await outgoing.enqueue(tx, {
        purpose: FEE_SWEEP_PURPOSE,
        referenceId: sweepId,
        key: `fee-sweep:${sweepId}`,
        from: { kind: FEE_VAULT_KIND, ownerId: FEE_VAULT_OWNER },
        coin: coin.reference,
        to: cold.address,
        amount,
        fundingHoldId: hold.id,
      })
      await feeRepo.update(tx, sweepId, { outgoingId: sent.id })
      await audit(tx, {
        id: sweepId,
        coin: coin.reference,
        amount,
        to: cold.address,
        sweepable,
        transferId: sent.id,
      })
      return sweepId
    })
    const sweep = await this.sweepById(id)
    log.info(
      {
        sweepId: id,
        transferId: sweep.transferId,
        coin: coin.reference,
        amount: sweep.amount,
        to: sweep.to,
        by: actorId,
      },
      'fee sweep requested',
    )
    return sweep
  }
}

/** What an operator sees: the stored outcome, or the transfer's progress while it is open. */
function statusOf(stored: FeeSweepRow['status'], transfer: OutgoingStatus | null): SweepStatus {
  if (stored !== 'pending') return stored
  if (transfer === 'completed') return 'confirmed'
  if (transfer === 'failed') return 'failed'
  if (transfer === 'signed' || transfer === 'sent') return 'sent'
  return 'pending'
}
