// Escrow's facade: the operations routes and other modules call (#13–#15, cancellation, in-app
// payment, the dispute split, the deposit.credited job), each checking who may act and handing
// over to the service that does it: initiate.ts (quotes, opening), credits.ts (payments credited),
// release.ts, cancel.ts, dispute-split.ts and pay.ts; legs are sent by payouts.ts. Those take
// escrow's ports (ports.ts) and the repo, never this class.
import { getAddress } from 'viem'
import type { Executor, Tx } from '../../db/index.ts'
import type { EscrowStatus } from '../../db/tables/escrow.ts'
import { errors } from '../../http/errors.ts'
import { formatCents, formatUnits, unitsToNumber } from '../../platform/money/index.ts'
import { UserAddresses } from './addresses.ts'
import { EscrowCancellation } from './cancel.ts'
import { EscrowCredits } from './credits.ts'
import { EscrowDisputeSplit, type SplitWant } from './dispute-split.ts'
import { EscrowInitiation, type OpenEscrow } from './initiate.ts'
import { payFromWallet } from './pay.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { DepositCredited, EscrowPorts } from './ports.ts'
import { EscrowRelease, type ReleaseOptions } from './release.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'
import type { InitiateInput, PayInput } from './schemas.ts'

export { QUOTE_VALIDITY_MS } from './initiate.ts'
/** ledger owner ids of the platform's revenue accounts (kind platform_fee) */
export const PLATFORM_FEE_OWNER = ''
export const NETWORK_FEE_OWNER = 'network'

export type PublicStatus = 'waiting' | 'paid' | 'released' | 'cancelled'
export const publicStatus = (s: EscrowStatus): PublicStatus => (s === 'releasing' ? 'paid' : s)

/** Escrow's ports and settings, and the payouts (built first: their outcome handlers register). */
export interface EscrowDeps extends EscrowPorts {
  payouts: EscrowPayouts
}

export class EscrowService {
  readonly #addresses: UserAddresses
  readonly #initiation: EscrowInitiation
  readonly #credits: EscrowCredits
  readonly #release: EscrowRelease
  readonly #cancellation: EscrowCancellation
  readonly #split: EscrowDisputeSplit

  constructor(private readonly deps: EscrowDeps) {
    const addresses = new UserAddresses(deps.keys)
    const credits = new EscrowCredits({ ...deps, addresses })
    const release = new EscrowRelease({ ...deps, addresses })
    const cancellation = new EscrowCancellation({ ...deps, addresses, credits })
    this.#addresses = addresses
    this.#credits = credits
    this.#release = release
    this.#cancellation = cancellation
    this.#initiation = new EscrowInitiation({ ...deps, credits })
    this.#split = new EscrowDisputeSplit({ ...deps, addresses, credits, release, cancellation })
  }

  /** The coin's USD rate now (503 when the rate source cannot price it). */
  rate(coin: string): Promise<string> {
    return this.deps.transactions.requireRate(coin)
  }

  /** An active coin by reference; anything else is 400 at `path`. */
  coin(reference: string, path = '/coin') {
    return this.#initiation.coin(reference, path)
  }

  /** The quote of a price in USD cents in a coin at its current rate (#13's arithmetic). */
  quote(cents: bigint, coin: { reference: string; decimals: number }, path = '/amount') {
    return this.#initiation.quote(cents, coin, path)
  }

  /**
   * Inside the caller's transaction: a fresh custodial key (the payment address), the escrow's
   * ledger account and the escrow row with its quote. Returns the payment address.
   */
  open(tx: Tx, e: OpenEscrow): Promise<{ address: string; expiresAt: Date; row: EscrowRow }> {
    return this.#initiation.open(tx, e)
  }

  /** #13 (see initiate.ts) */
  initiate(payerId: string, input: InitiateInput) {
    return this.#initiation.initiate(payerId, input)
  }

  /** An escrow the caller may see (payer or receiver); anyone else gets 404. */
  async #visible(userId: string, escrowId: string): Promise<EscrowRow> {
    const row = await escrowRepo.get(this.deps.db, escrowId)
    if (!row || (row.payerId !== userId && row.receiverId !== userId)) throw errors.notFound('escrow')
    return row
  }

  /** The deposit.credited job: a credited payment to an escrow address is applied (once). */
  onDepositCredited(report: DepositCredited): Promise<void> {
    return this.#credits.onDepositCredited(report)
  }

  /** Applies what was credited to the escrow's address and not applied yet (see credits.ts). */
  absorb(escrowId: string): Promise<void> {
    return this.#credits.absorb(escrowId)
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

  /** The user's wallet address (their custodial key's, made in `tx` when they have none yet). */
  userAddress(tx: Tx, userId: string): Promise<string> {
    return this.#addresses.userAddress(tx, userId)
  }

  /**
   * The escrow with the checks of a money request (see escrowRepo.getChecked), when the caller is
   * its payer; the receiver is 403 (`action` says what only the payer may do), anyone else 404.
   */
  async #payers(userId: string, escrowId: string, action: string) {
    const row = await escrowRepo.getChecked(this.deps.db, escrowId)
    if (!row || (row.payerId !== userId && row.receiverId !== userId)) throw errors.notFound('escrow')
    if (row.payerId !== userId) throw errors.forbidden(`Only the payer may ${action} this escrow`)
    return row
  }

  /**
   * Applies what was credited to the escrow (read just now as `row`) and answers its state: `row`
   * itself when nothing was credited, else the escrow read again (the checks beside it kept: a
   * credit changes none of them).
   */
  async #absorbed<R extends EscrowRow>(row: R): Promise<R> {
    if (!(await this.#credits.absorbRead(row))) return row
    return { ...row, ...(await escrowRepo.get(this.deps.db, row.id))! }
  }

  /** #15, and the collection payment API's release in parts (see release.ts). */
  async release(userId: string, escrowId: string, opts: ReleaseOptions = {}) {
    const seen = await this.#payers(userId, escrowId, 'release')
    await this.deps.halts.assertNotHalted(seen.coin)
    return this.#release.release(await this.#absorbed(seen), opts)
  }

  /**
   * Cancels an unpaid escrow; what it already received goes back to the payer (a direct deposit's
   * to the address its payer gave). `inTx` runs in the cancelling transaction (see cancel.ts).
   */
  async cancel(userId: string, escrowId: string, inTx?: (tx: Tx) => Promise<void>) {
    const row = await this.#visible(userId, escrowId)
    if (row.payerId !== userId) throw errors.forbidden('Only the payer may cancel this escrow')
    return this.#cancellation.cancel(row, inTx)
  }

  /** Pays an escrow from the payer's in-app wallet (see pay.ts). */
  async pay(userId: string, input: PayInput) {
    const seen = await this.#payers(userId, input.escrowId, 'pay')
    // A public payment order's refunds go to its payer's address: the creator's wallet never pays it.
    if (seen.paymentOrder)
      throw errors.named(
        'PAYMENT_ORDER_PENDING',
        'This escrow is a public payment order awaiting its payer; cancel it to pay another way',
      )
    await this.deps.halts.assertNotHalted(seen.coin)
    return payFromWallet(this.deps, await this.#absorbed(seen), userId, input)
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
    return this.#split.splitState(escrowId)
  }

  /** Pays out a cancelled or disputed job's escrow: a share released, the rest refunded (dispute-split.ts). */
  settleSplit(escrowId: string, want: SplitWant, key: string) {
    return this.#split.settleSplit(escrowId, want, key)
  }
}
