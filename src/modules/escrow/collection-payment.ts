// The collection payment API (the client SDK's PaymentModule), a second way into the escrow of
// #13–#15: an existing collection is funded through an escrow of its own (POST /v1/payment/),
// its payment is checked (validate) and released, all at once or in parts (release).
import { getAddress } from 'viem'
import type { Db } from '../../db/index.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import {
  AmountError,
  centsToNumber,
  formatCents,
  formatUnits,
  usdNumberToCents,
  usdTextToCents,
} from '../../platform/money/index.ts'
import { directDepositRepo } from './direct-deposit-repo.ts'
import { paymentFigures } from './payment-figures.ts'
import type { CollectionPaymentInput, FundInput, ReleaseInput } from './payment-schemas.ts'
import type { EscrowCollections } from './ports.ts'
import { MAX_ESCROW_CENTS, MIN_ESCROW_CENTS, QuoteError, usdToCents } from './quote.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'
import type { EscrowService } from './service.ts'

type CollectionState = NonNullable<Awaited<ReturnType<EscrowCollections['escrowState']>>>

export class CollectionPayments {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      chain: ChainAdapter
      collections: EscrowCollections
      escrow: EscrowService
    },
  ) {}

  /** A collection the caller may see (public, or theirs, or theirs to receive); else 404. */
  async #collection(userId: string, collectionId: string): Promise<CollectionState> {
    const state = await this.deps.collections.escrowState(this.deps.db, collectionId)
    if (!state || (state.isPrivate && state.creatorId !== userId && state.receiverId !== userId))
      throw errors.notFound('collection')
    return state
  }

  #view(row: EscrowRow, contractAddress: string) {
    return {
      coin: row.coin,
      address: getAddress(row.address),
      ...paymentFigures(row, formatUnits, formatCents),
      chainId: String(this.deps.chain.chainId),
      escrowId: row.id,
      contractAddress,
      expiresAt: row.expiresAt.toISOString(),
    }
  }

  /**
   * The collection's current escrow answered again when it awaits payment in the same coin (and,
   * when the request names a price, at that price); 409 when it is paid, or awaits another coin or
   * another price; undefined when there is none (never funded, or cancelled).
   */
  async #existing(state: CollectionState, coin: string, cents: bigint | undefined) {
    if (!state.escrowId) return undefined
    const row = await escrowRepo.get(this.deps.db, state.escrowId)
    if (!row || row.status === 'cancelled') return undefined
    // A public payment order (direct deposit) is the outside payer's: what it holds is refunded to
    // them, so the creator never takes it over as their own payment.
    if (row.status === 'waiting' && (await directDepositRepo.byEscrow(this.deps.db, row.id)))
      throw errors.named(
        'PAYMENT_ORDER_PENDING',
        `This collection awaits a public payment order (escrow ${row.id}) until it is paid or expires; cancel it with POST /v1/escrow/cancel to pay it yourself`,
      )
    if (row.status !== 'waiting')
      throw errors.named(
        'ESCROW_ALREADY_PAID',
        row.status === 'paid'
          ? 'This collection has already been paid'
          : 'This collection’s payment has already been released',
      )
    if (row.coin !== coin)
      throw errors.named(
        'ESCROW_COIN_MISMATCH',
        `This collection already awaits payment in ${row.coin} (escrow ${row.id}); cancel it with POST /v1/escrow/cancel to pay in another coin`,
      )
    if (cents !== undefined && cents !== BigInt(row.escrowCents))
      throw errors.named(
        'ESCROW_PRICE_MISMATCH',
        `This collection already awaits payment of ${formatCents(BigInt(row.escrowCents))} USD (escrow ${row.id}); cancel it with POST /v1/escrow/cancel to change the price`,
      )
    return row
  }

  /** The collection's paymentFee in cents, when it can be escrowed (else 422). */
  #priceOf(state: CollectionState): bigint {
    const cents = usdTextToCents(state.paymentFee) ?? 0n
    if (cents < MIN_ESCROW_CENTS || cents > MAX_ESCROW_CENTS)
      throw errors.named(
        'COLLECTION_PRICE_INVALID',
        `The collection’s paymentFee (${state.paymentFee} USD) cannot be escrowed: the price must be 1.00 to 1000000000 USD; send usdValue`,
        {
          errors: [
            { path: '/usdValue', message: 'required: the collection has no price that can be escrowed' },
          ],
        },
      )
    return cents
  }

  /** POST /v1/payment/: the quote of the collection's escrow, created when it has none. */
  async fund(userId: string, input: FundInput) {
    const { db, escrow, collections } = this.deps
    const state = await this.#collection(userId, input.collection)
    if (state.creatorId !== userId) throw errors.forbidden('Only the collection’s creator may fund it')
    const coin = await escrow.coin(input.coin)
    let asked: bigint | undefined
    if (input.usdValue !== undefined) {
      try {
        asked = usdToCents(input.usdValue)
      } catch (err) {
        if (err instanceof QuoteError) throw errors.field('/usdValue', err.message)
        throw err
      }
    }
    const contract = coin.contractAddress ?? ''
    // What was credited to the current escrow counts before its state is judged.
    if (state.escrowId) await escrow.absorb(state.escrowId)
    const existing = await this.#existing(state, coin.reference, asked)
    if (existing) return this.#view(existing, contract)
    const cents = asked ?? this.#priceOf(state)
    const { rate, quote } = await escrow.quote(cents, coin, '/usdValue')
    const now = this.deps.clock.now()
    const escrowId = newId(now.getTime())
    let opened: EscrowRow
    try {
      opened = await db.transaction().execute(async (tx) => {
        // Locks the collection: of two requests at once, the second sees the first's escrow.
        await collections.markEscrow(tx, state.id, { state: 'waiting', escrowId })
        const { row } = await escrow.open(tx, {
          id: escrowId,
          collectionId: state.id,
          payerId: userId,
          receiverId: state.receiverId,
          coin,
          rate,
          quote,
          now,
        })
        return row
      })
    } catch (err) {
      if (err instanceof AppError && err.code === 'COLLECTION_HAS_ESCROW') {
        const same = await this.#existing(
          await this.#collection(userId, input.collection),
          coin.reference,
          asked,
        )
        if (same) return this.#view(same, contract)
      }
      throw err
    }
    return this.#view(opened, contract)
  }

  /** POST /v1/payment/validate: #14 for the collection's escrow. */
  async validate(userId: string, input: CollectionPaymentInput) {
    const state = await this.#collection(userId, input.collection)
    const row = state.escrowId ? await escrowRepo.get(this.deps.db, state.escrowId) : undefined
    if (state.creatorId !== userId && state.receiverId !== userId && row?.receiverId !== userId)
      throw errors.forbidden('Only the collection’s creator and receiver may check its payment')
    if (!row)
      throw errors.named(
        'COLLECTION_NOT_FUNDED',
        'This collection has no payment yet: create it with POST /v1/payment/',
      )
    return this.deps.escrow.check(row.id)
  }

  /** POST /v1/payment/release: `amount` USD of the price (a part, or all that remains). */
  async release(userId: string, input: ReleaseInput, key: string | undefined) {
    const state = await this.#collection(userId, input.collection)
    if (state.creatorId !== userId)
      throw errors.forbidden('Only the collection’s creator may release its payment')
    let cents: bigint
    try {
      cents = usdNumberToCents(input.amount)
    } catch (err) {
      if (err instanceof AmountError) throw errors.field('/amount', err.message)
      throw err
    }
    if (!state.escrowId)
      throw errors.named(
        'COLLECTION_NOT_FUNDED',
        'This collection has no payment yet: create it with POST /v1/payment/',
      )
    const r = await this.deps.escrow.release(userId, state.escrowId, {
      cents,
      collection: state,
      ...(key ? { key } : {}),
    })
    if (!r.part) return { message: r.message, data: {} }
    const p = r.part
    return {
      message: r.message,
      data: {
        escrowId: p.escrowId,
        amount: centsToNumber(p.cents),
        releasedAmount: centsToNumber(p.releasedCents),
        remainingAmount: centsToNumber(p.remainingCents),
        payout: formatUnits(p.payout, p.decimals),
        fee: formatUnits(p.fee, p.decimals),
        final: p.final,
      },
    }
  }
}
