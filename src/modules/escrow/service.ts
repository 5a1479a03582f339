// Escrow rules: quotes and the escrow's opening, payment detection (the deposit.credited job) and
// validation (#14), cancellation and in-app payment. Initiation (#13) is `initiate.ts`, release
// `release.ts`; legs are sent by `payouts.ts`.
import type { Logger } from 'pino'
import { getAddress } from 'viem'
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { EscrowStatus } from '../../db/tables/escrow.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { formatCents, formatUnits, unitsToNumber } from '../../platform/money/index.ts'
import type { ConfirmPassword } from '../account/types.ts'
import type { CollectionService } from '../collections/service.ts'
import type { EventService } from '../events/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { CoinService } from '../payment/types.ts'
import type { Halts } from '../settlement/reconcile/halts.ts'
import type { KeyStore } from '../settlement/types.ts'
import type { DepositWatcher } from '../settlement/watcher/job.ts'
import type { DepositCredited } from '../settlement/watcher/types.ts'
import type { TransactionService } from '../transactions/service.ts'
import { absorbCredits, onDepositCredited } from './credits.ts'
import { directDepositRepo } from './direct-deposit-repo.ts'
import { type SplitWant, settleSplit, splitState } from './dispute-split.ts'
import { initiateEscrow } from './initiate.ts'
import { payFromWallet } from './pay.ts'
import { returnToPayer } from './payer-refund.ts'
import type { EscrowPayouts } from './payouts.ts'
import { computeQuote, QuoteError } from './quote.ts'
import { EscrowRelease, type EscrowRow, type ReleaseOptions } from './release.ts'
import { escrowRepo } from './repo.ts'
import type { InitiateInput, PayInput } from './schemas.ts'

/** How long a quote's rate is guaranteed. */
export const QUOTE_VALIDITY_MS = 30 * 60 * 1000
/** ledger owner ids of the platform's revenue accounts (kind platform_fee) */
export const PLATFORM_FEE_OWNER = ''
export const NETWORK_FEE_OWNER = 'network'

export type PublicStatus = 'waiting' | 'paid' | 'released' | 'cancelled'
export const publicStatus = (s: EscrowStatus): PublicStatus => (s === 'releasing' ? 'paid' : s)

export interface EscrowDeps {
  db: Db
  clock: Clock
  log: Logger
  chain: ChainAdapter
  coins: CoinService
  ledger: Ledger
  /** settlement's custodial keys: the escrow's payment address, a user's payout address */
  keys: Pick<KeyStore, 'ensure' | 'find'>
  collections: CollectionService
  payouts: EscrowPayouts
  transactions: TransactionService
  events: EventService
  /** the deposit watcher: scans on request, and the credits still to report */
  watcher: Pick<DepositWatcher, 'waitForScan' | 'reports'>
  /** coins halted by reconciliation: nothing is sent in them */
  halts: Pick<Halts, 'assertNotHalted'>
  /** checks the code confirming a sensitive action and runs `then` in the transaction using it up */
  verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
  /** the account password of a payment from the in-app wallet */
  confirmPassword: ConfirmPassword
  platformFeePercent: number
  /** where releases pay the platform fee: the platform's fee address (lower case) */
  platformFeeAddress: string
  /** payment methods beside crypto (a card provider when configured) */
  cardPayments: boolean
}

export class EscrowService {
  readonly #release: EscrowRelease

  constructor(private readonly deps: EscrowDeps) {
    this.#release = new EscrowRelease(deps, {
      rate: (coin) => this.rate(coin),
      userAddress: (tx, userId) => this.userAddress(tx, userId),
    })
  }

  /** The coin's USD rate now (503 when the rate source cannot price it). */
  rate(coin: string): Promise<string> {
    return this.deps.transactions.requireRate(coin)
  }

  /** An active coin by reference; anything else is 400 at `path`. */
  async coin(reference: string, path = '/coin') {
    return this.deps.coins.get(reference).catch((err) => {
      if (err instanceof AppError) throw errors.field(path, 'unknown or inactive coin')
      throw err
    })
  }

  /** The quote of a price in USD cents in a coin at its current rate (#13's arithmetic). */
  async quote(cents: bigint, coin: { reference: string; decimals: number }, path = '/amount') {
    const rate = await this.rate(coin.reference)
    try {
      const quote = computeQuote({
        cents,
        rate,
        decimals: coin.decimals,
        feePercent: this.deps.platformFeePercent,
      })
      return { rate, quote }
    } catch (err) {
      if (err instanceof QuoteError)
        throw errors.named('ESCROW_AMOUNT_OUT_OF_RANGE', err.message, {
          errors: [{ path, message: err.message }],
        })
      throw err
    }
  }

  /**
   * Inside the caller's transaction: a fresh custodial key (the payment address), the escrow's
   * ledger account and the escrow row with its quote. Returns the payment address.
   */
  async open(
    tx: Tx,
    e: {
      id: string
      collectionId: string
      payerId: string
      receiverId: string | null
      parentEscrowId?: string | null
      coin: { reference: string; decimals: number }
      rate: string
      quote: ReturnType<typeof computeQuote>
      now: Date
    },
  ): Promise<{ address: string; expiresAt: Date }> {
    const key = await this.deps.keys.ensure(tx, 'escrow', e.id)
    await this.deps.ledger.ensureAccount(tx, 'escrow', e.id, e.coin.reference)
    const expiresAt = new Date(e.now.getTime() + QUOTE_VALIDITY_MS)
    const q = e.quote
    await escrowRepo.insert(tx, {
      id: e.id,
      collectionId: e.collectionId,
      payerId: e.payerId,
      receiverId: e.receiverId,
      parentEscrowId: e.parentEscrowId ?? null,
      coin: e.coin.reference,
      decimals: e.coin.decimals,
      address: key.address,
      escrowCents: q.escrowCents,
      rate: e.rate,
      feePercent: String(this.deps.platformFeePercent),
      coinEscrowAmount: q.coinEscrowAmount,
      expectedFee: q.expectedFee,
      amountToPay: q.amountToPay,
      usdFeeCents: q.usdFeeCents,
      usdAmountCents: q.usdAmountCents,
      expiresAt,
      createdAt: e.now,
      updatedAt: e.now,
    })
    return { address: key.address, expiresAt }
  }

  /** #13 (see initiate.ts) */
  initiate(payerId: string, input: InitiateInput) {
    return initiateEscrow(this.deps, this, payerId, input)
  }

  /** An escrow the caller may see (payer or receiver); anyone else gets 404. */
  async #visible(userId: string, escrowId: string): Promise<EscrowRow> {
    const row = await escrowRepo.get(this.deps.db, escrowId)
    if (!row || (row.payerId !== userId && row.receiverId !== userId)) throw errors.notFound('escrow')
    return row
  }

  /** The deposit.credited job: a credited payment to an escrow address is applied (once). */
  onDepositCredited(report: DepositCredited): Promise<void> {
    return onDepositCredited(this.deps, report, (tx, userId) => this.userAddress(tx, userId))
  }

  /** Applies what was credited to the escrow's address and not applied yet (see credits.ts). */
  absorb(escrowId: string): Promise<void> {
    return absorbCredits(this.deps, escrowId, (tx, userId) => this.userAddress(tx, userId))
  }

  /** #14 */
  async validate(userId: string, escrowId: string) {
    await this.#visible(userId, escrowId)
    return this.check(escrowId)
  }

  /**
   * Asks the deposit watcher for a scan and waits for it a short while (bounded), applies what it
   * credited to the escrow, then answers #14's fields from the database (no permission check).
   */
  async check(escrowId: string) {
    try {
      await this.deps.watcher.waitForScan()
    } catch (err) {
      // The stored state is still the best answer when the scan cannot be asked for right now.
      this.deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'escrow validation scan failed',
      )
    }
    await this.absorb(escrowId)
    const row = (await escrowRepo.get(this.deps.db, escrowId))!
    const status = publicStatus(row.status)
    const received = BigInt(row.received)
    const symbol = this.deps.chain.coin(row.coin).symbol
    const released = BigInt(row.releasedCents)
    const message =
      status === 'paid'
        ? released > 0n
          ? `Payment has already been made; ${formatCents(released)} of ${formatCents(BigInt(row.escrowCents))} USD released`
          : 'Payment has already been made'
        : status === 'released'
          ? 'Payment has already been made and released'
          : status === 'cancelled'
            ? 'This escrow was cancelled'
            : received > 0n
              ? `Partial payment received: ${formatUnits(received, row.decimals)} of ${formatUnits(BigInt(row.amountToPay), row.decimals)} ${symbol}`
              : 'Awaiting payment'
    return {
      message,
      data: {
        escrowId: row.id,
        paymentAmount: unitsToNumber(received, row.decimals),
        paymentAddress: getAddress(row.address),
        receiverId: row.receiverId ?? '',
        status,
      },
    }
  }

  async userAddress(tx: Tx, userId: string): Promise<string> {
    const key = await this.deps.keys.find(tx, 'user', userId)
    if (key) return key.address
    return (await this.deps.keys.ensure(tx, 'user', userId)).address
  }

  /** #15, and the collection payment API's release in parts (see release.ts). */
  async release(userId: string, escrowId: string, opts: ReleaseOptions = {}) {
    const seen = await this.#visible(userId, escrowId)
    if (seen.payerId !== userId) throw errors.forbidden('Only the payer may release this escrow')
    await this.deps.halts.assertNotHalted(seen.coin)
    await this.absorb(escrowId)
    return this.#release.release((await escrowRepo.get(this.deps.db, escrowId))!, opts)
  }

  /**
   * Cancels an unpaid escrow; what it already received goes back to the payer (a direct deposit's
   * to the address its payer gave). `inTx` runs in the cancelling transaction.
   */
  async cancel(userId: string, escrowId: string, inTx?: (tx: Tx) => Promise<void>) {
    const row = await this.#visible(userId, escrowId)
    if (row.payerId !== userId) throw errors.forbidden('Only the payer may cancel this escrow')
    await this.deps.halts.assertNotHalted(row.coin)
    await this.absorb(escrowId)
    const payerAddress = await this.deps.db.transaction().execute((tx) => this.userAddress(tx, row.payerId))
    const rate = await this.deps.transactions.rateOf(row.coin)
    return this.deps.db.transaction().execute(async (tx) => {
      const locked = (await escrowRepo.get(tx, escrowId, true))!
      if (locked.status === 'cancelled') {
        // A refund that ran out of retries has no other way out of the escrow's account.
        if ((await this.deps.payouts.retryFailed(tx, locked)) > 0)
          return { message: 'The refund that failed earlier is being sent again' }
        throw errors.named('ESCROW_CANCELLED', 'This escrow is already cancelled')
      }
      if (locked.status !== 'waiting')
        throw errors.named('ESCROW_ALREADY_PAID', 'A paid escrow cannot be cancelled; release it instead')
      const now = this.deps.clock.now()
      await escrowRepo.update(tx, locked.id, { status: 'cancelled', cancelledAt: now }, now)
      await this.deps.collections.markEscrow(tx, locked.collectionId, {
        state: 'cancelled',
        escrowId: locked.id,
      })
      const balance = await this.deps.ledger.balance(tx, 'escrow', locked.id, locked.coin)
      await returnToPayer(this.deps, tx, locked, balance, rate, payerAddress)
      if (inTx) await inTx(tx)
      // A public payment order's money goes back to its own payer, not to the caller's wallet.
      const to = (await directDepositRepo.byEscrow(tx, locked.id)) ? 'the payer' : 'your wallet'
      return {
        message:
          balance > 0n
            ? `Escrow cancelled; the amount received is being returned to ${to}`
            : 'Escrow cancelled',
      }
    })
  }

  /** Pays an escrow from the payer's in-app wallet (see pay.ts). */
  async pay(userId: string, input: PayInput) {
    const seen = await this.#visible(userId, input.escrowId)
    if (seen.payerId !== userId) throw errors.forbidden('Only the payer may pay this escrow')
    // A public payment order's refunds go to its payer's address: the creator's wallet never pays it.
    if (await directDepositRepo.byEscrow(this.deps.db, seen.id))
      throw errors.named(
        'PAYMENT_ORDER_PENDING',
        'This escrow is a public payment order awaiting its payer; cancel it to pay another way',
      )
    await this.deps.halts.assertNotHalted(seen.coin)
    await this.absorb(input.escrowId)
    return payFromWallet(this.deps, (await escrowRepo.get(this.deps.db, input.escrowId))!, userId, input)
  }

  /** Who funds and who is paid from each escrow (proof of reserves), read in `ex`. */
  async parties(
    ex: Executor,
    ids: string[],
  ): Promise<{ id: string; payerId: string; receiverId: string | null }[]> {
    const out: { id: string; payerId: string; receiverId: string | null }[] = []
    for (let i = 0; i < ids.length; i += 1000)
      out.push(...(await escrowRepo.parties(ex, ids.slice(i, i + 1000))))
    return out
  }

  /** The escrow's status and the USD cents of its price not released yet (see dispute-split.ts). */
  splitState(escrowId: string) {
    return splitState(this.deps, escrowId)
  }

  /** Pays out a cancelled or disputed job's escrow: a share released, the rest refunded (dispute-split.ts). */
  settleSplit(escrowId: string, want: SplitWant, key: string) {
    return settleSplit(
      this.deps,
      {
        release: this.#release,
        absorb: (id) => this.absorb(id),
        cancel: (userId, id) => this.cancel(userId, id),
        userAddress: (tx, userId) => this.userAddress(tx, userId),
      },
      escrowId,
      want,
      key,
    )
  }
}
