// Releasing a paid escrow: all of it at once (#15) or in parts (POST /v1/payment/release). Each
// release queues on-chain legs (payout, network fee, platform fee, and with the last part the
// refund of an overpayment) in one transaction under the escrow's row lock; the last part makes
// the escrow `releasing`, and `leg-outcomes.ts` makes it `released` once every leg is confirmed.
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { convertUnits, formatCents, formatUnits } from '../../platform/money/index.ts'
import type { UserAddresses } from './addresses.ts'
import { planPart, splitFee } from './partial.ts'
import { refundLeg } from './payer-refund.ts'
import type { EscrowPayouts, PlannedLeg } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'

export type ReleaseDeps = Pick<
  EscrowPorts,
  'db' | 'clock' | 'chain' | 'collections' | 'transactions' | 'fees' | 'platformFeeAddress'
> & { payouts: EscrowPayouts; addresses: UserAddresses }

export interface ReleaseOptions {
  /** USD cents of the price to release; all that remains when absent */
  cents?: bigint
  /** the request's Idempotency-Key: a request run twice releases once */
  key?: string
  /** the payout of a cancelled or disputed job's split, the only release its frozen escrow allows */
  settlement?: boolean
  /** the escrow's collection as the caller read it in this request (its receiver is not read again) */
  collection?: { id: string; receiverId: string | null }
}

/**
 * The escrow to release, with what `escrowRepo.getChecked` read beside it when the caller had it
 * (each is read here otherwise).
 */
export type ReleaseRow = EscrowRow & { waitingChild?: boolean; openFunding?: boolean }

/** What a release moved (absent when the call only retried failed transfers). */
export interface ReleasedPart {
  escrowId: string
  cents: bigint
  releasedCents: bigint
  remainingCents: bigint
  payout: bigint
  fee: bigint
  decimals: number
  final: boolean
}

export interface ReleaseResult {
  message: string
  part?: ReleasedPart
}

export class EscrowRelease {
  constructor(private readonly deps: ReleaseDeps) {}

  /**
   * The network fee of a release of `legs` transfers plus a gas top-up, in the escrow's coin:
   * settlement's quote of their gas (one chain read), converted at the current rates for a token,
   * capped at the escrow's expectedFee. Then any number of legs.
   */
  async #networkFees(row: EscrowRow): Promise<(legs: number) => bigint> {
    const quote = await this.deps.fees.quoteTransferFee(row.coin)
    const expected = BigInt(row.expectedFee)
    const cap = (v: bigint) => (v < expected ? v : expected)
    const { native } = quote
    if (!quote.coin.isToken || !native) return (legs) => cap(quote.gasCost(legs))
    // wei → token base units of the same USD value, rounded up
    const from = {
      decimals: native.decimals,
      rate: await this.deps.transactions.requireRate(native.reference),
    }
    const to = { decimals: quote.coin.decimals, rate: row.rate }
    return (legs) => cap(convertUnits(quote.gasCost(legs), from, to, 'ceil'))
  }

  /** The answer to a request that already released (same Idempotency-Key). */
  async #replay(row: EscrowRow, key: string | undefined): Promise<ReleaseResult | undefined> {
    if (!key) return undefined
    const done = await escrowRepo.releaseByKey(this.deps.db, row.id, key)
    if (!done) return undefined
    const now = (await escrowRepo.get(this.deps.db, row.id))!
    return this.#result(now, {
      cents: BigInt(done.cents),
      payout: BigInt(done.payout),
      fee: BigInt(done.fee),
      final: done.final,
    })
  }

  #result(
    after: EscrowRow,
    part: { cents: bigint; payout: bigint; fee: bigint; final: boolean },
    retried = 0,
  ): ReleaseResult {
    const released = BigInt(after.releasedCents)
    const remaining = BigInt(after.escrowCents) - released
    const symbol = this.deps.chain.coin(after.coin).symbol
    const again = retried > 0 ? '; the payouts that failed earlier are being sent again' : ''
    const coins = (units: bigint) => `${formatUnits(units, after.decimals)} ${symbol}`
    const message = !part.final
      ? `Released ${formatCents(part.cents)} USD (${coins(part.payout)} and the fees are being sent); ${formatCents(remaining)} USD remain in escrow${again}`
      : released === part.cents
        ? `Escrow release started: the payout and fees are being sent${again}`
        : `Released the remaining ${formatCents(part.cents)} USD (${coins(part.payout)} and the fees are being sent); the escrow is released once they are confirmed${again}`
    return {
      message,
      part: {
        escrowId: after.id,
        cents: part.cents,
        releasedCents: released,
        remainingCents: remaining,
        payout: part.payout,
        fee: part.fee,
        decimals: after.decimals,
        final: part.final,
      },
    }
  }

  /** Releases `row` (already checked: the caller is its payer). */
  async release(row: ReleaseRow, opts: ReleaseOptions = {}): Promise<ReleaseResult> {
    const { db, payouts } = this.deps
    const escrowId = row.id
    const replay = await this.#replay(row, opts.key)
    if (replay) return replay
    if (row.status === 'released') {
      // A refund of a payment that arrived after the release, once it ran out of retries, is sent
      // again from here (it has no other way out of the escrow's account).
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        return locked.status === 'released' ? payouts.retryFailed(tx, locked) : 0
      })
      if (retried > 0) return { message: 'Release retried: the failed refund is being sent again' }
      throw errors.conflict('This escrow has already been released', 'ESCROW_ALREADY_RELEASED')
    }
    if (row.status === 'cancelled') throw errors.named('ESCROW_CANCELLED', 'This escrow was cancelled')
    if (row.status === 'waiting')
      throw errors.businessRule('The escrow has not been paid yet', 'ESCROW_NOT_FUNDED')
    if (row.status === 'releasing') {
      // Only legs that ran out of retries can be started again; the rest are under way.
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        const legs = await escrowRepo.legs(tx, escrowId)
        if (locked.status !== 'releasing' || !legs.some((l) => l.status === 'failed')) return false
        await payouts.retryFailed(tx, locked, legs)
        return true
      })
      if (!retried) throw errors.named('ESCROW_RELEASE_IN_PROGRESS', 'This escrow is already being released')
      return { message: 'Release retried: the failed payouts are being sent again' }
    }
    // A child's funding leg moves value that is on its way to (or at) the child. Until each is
    // settled the escrow's ledger balance is not what it keeps, and a release would plan its legs
    // (the refund above all) from that wrong balance. (No open `fund` leg: no funding under way.)
    const waitingChild =
      row.waitingChild ?? (await escrowRepo.children(db, escrowId)).some((c) => c.status === 'waiting')
    const funding = row.openFunding === false ? false : await payouts.fundingUnderWay(db, escrowId)
    if (funding || waitingChild) {
      // A child's funding that failed for good is sent again by calling release.
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        return locked.status === 'paid' ? payouts.retryFailed(tx, locked) : 0
      })
      if (retried > 0)
        return { message: 'The funding of a child escrow failed earlier and is being sent again' }
      throw errors.named(
        'ESCROW_CHILD_FUNDING_PENDING',
        'A child escrow funded from this one is still being funded',
      )
    }
    // The collection's assigned receiver when it has one, else the escrow's own.
    const state =
      opts.collection?.id === row.collectionId
        ? opts.collection
        : await this.deps.collections.escrowState(db, row.collectionId)
    const receiverId = state?.receiverId ?? row.receiverId
    if (!receiverId)
      throw errors.named(
        'ESCROW_NO_RECEIVER',
        'This escrow has no receiver yet: the collection needs an assigned receiver before it can be released',
      )
    if (receiverId === row.payerId)
      throw errors.named('ESCROW_SELF_RELEASE', 'The payer cannot release an escrow to themselves')
    // The payer's address is read in the release's transaction, and only for a refund.
    const [networkFee, rate, receiverAddress] = await Promise.all([
      this.#networkFees(row),
      this.deps.transactions.rateOf(row.coin),
      this.deps.addresses.committedAddress(db, receiverId),
    ])
    return db.transaction().execute(async (tx) => {
      const locked = (await escrowRepo.get(tx, escrowId, true))!
      if (opts.key && (await escrowRepo.releaseByKey(tx, escrowId, opts.key)))
        throw errors.named('IDEMPOTENCY_KEY_IN_PROGRESS', 'This request is already being processed')
      if (locked.status === 'released' || locked.status === 'releasing')
        throw errors.conflict('This escrow has already been released', 'ESCROW_ALREADY_RELEASED')
      if (locked.status !== 'paid')
        throw errors.named('ESCROW_NOT_RELEASABLE', 'This escrow cannot be released now')
      if (!opts.settlement) await this.deps.collections.assertEscrowMovable(tx, locked.collectionId)
      // What the escrow keeps: its available ledger balance (the legs of earlier parts under way
      // are held) less failed legs owed until sent again, read under its account's lock, with its
      // legs (read once for the checks and the retries below).
      const held = await payouts.free(tx, locked)
      // (re-checked under the escrow's lock: a child funded meanwhile adds a leg)
      if (held.fundingUnderWay)
        throw errors.named(
          'ESCROW_CHILD_FUNDING_PENDING',
          'A child escrow funded from this one is still being funded',
        )
      const remainingCents = BigInt(locked.escrowCents) - BigInt(locked.releasedCents)
      const cents = opts.cents ?? remainingCents
      if (cents > remainingCents)
        throw errors.named(
          'RELEASE_AMOUNT_TOO_HIGH',
          `The amount is more than what remains in escrow (${formatCents(remainingCents)} USD)`,
          { errors: [{ path: '/amount', message: `at most ${formatCents(remainingCents)}` }] },
        )
      // Children are funded out of the price first, then out of an overpayment; never out of the
      // fee (funding is capped at received − expectedFee), so the fee legs always add up to the
      // whole expectedFee and only the rest goes back to the payer.
      const price = BigInt(locked.coinEscrowAmount)
      const funded = BigInt(locked.fundedToChildren)
      const payoutTotal = price > funded ? price - funded : 0n
      const payoutLeft = payoutTotal - BigInt(locked.releasedPayout)
      const part = planPart({
        cents,
        remainingCents,
        payoutLeft: payoutLeft > 0n ? payoutLeft : 0n,
        feeLeft: BigInt(locked.expectedFee) - BigInt(locked.releasedFee),
      })
      const fee = splitFee(part.fee, networkFee(part.final ? 4 : 3))
      const legs: PlannedLeg[] = [
        { kind: 'payout', to: receiverAddress, amount: part.payout },
        { kind: 'fee', to: this.deps.chain.gasWallet.address.toLowerCase(), amount: fee.network },
        { kind: 'platformFee', to: this.deps.platformFeeAddress, amount: fee.platform },
      ]
      const { free } = held
      const planned = part.payout + part.fee
      if (free < planned) throw errors.named('ESCROW_UNDERFUNDED', 'The escrow holds less than its payouts')
      const refund = part.final && free > planned ? free - planned : 0n
      // A direct deposit's overpayment goes to the address its payer gave (an operator's, email only).
      const refundTo = await refundLeg(tx, this.deps.clock, locked, refund, () =>
        this.deps.addresses.userAddress(tx, locked.payerId),
      )
      if (refundTo) legs.push(refundTo)
      const retried = await this.deps.payouts.retryFailed(tx, locked, held.legs)
      const now = this.deps.clock.now()
      const after = await escrowRepo.recordRelease(
        tx,
        locked.id,
        {
          releasedCents: BigInt(locked.releasedCents) + cents,
          releasedPayout: BigInt(locked.releasedPayout) + part.payout,
          releasedFee: BigInt(locked.releasedFee) + part.fee,
          receiverId,
          ...(part.final ? { status: 'releasing' as const } : {}),
        },
        {
          id: newId(now.getTime()),
          escrowId: locked.id,
          receiverId,
          cents,
          payout: part.payout,
          fee: part.fee,
          networkFee: fee.network,
          refund,
          final: part.final,
          requestKey: opts.key ?? null,
        },
        now,
      )
      // Legs with nothing to send are done at once.
      await payouts.queue(tx, { ...locked, receiverId }, legs, rate, { legs: held.legs, emptyDone: true })
      return this.#result(after, { cents, ...part }, retried)
    })
  }
}
