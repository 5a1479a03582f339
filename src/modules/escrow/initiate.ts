// Opening an escrow: the coin and the quote of a price, the escrow row with its payment address and
// ledger account (in the caller's transaction), and #13's initiation: the job's collection (a
// child of a paid parent when `parent` is given, funded from it), the address and the quote, in
// one transaction.
import { getAddress } from 'viem'
import type { Tx } from '../../db/index.ts'
import { AppError, errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { centsToDecimal, centsToNumber, unitsToNumber } from '../../platform/money/index.ts'
import type { EscrowCredits } from './credits.ts'
import type { EscrowPayouts } from './payouts.ts'
import type { EscrowPorts } from './ports.ts'
import { computeQuote, QuoteError, usdToCents } from './quote.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'
import type { InitiateInput } from './schemas.ts'
import { fundChild, parentFor } from './trees.ts'

/** How long a quote's rate is guaranteed. */
export const QUOTE_VALIDITY_MS = 30 * 60 * 1000

export type InitiateDeps = Pick<
  EscrowPorts,
  | 'db'
  | 'clock'
  | 'chain'
  | 'coins'
  | 'ledger'
  | 'keys'
  | 'collections'
  | 'transactions'
  | 'platformFeePercent'
  | 'cardPayments'
> & { payouts: EscrowPayouts; credits: Pick<EscrowCredits, 'absorb'> }

/** What `open` records of a new escrow. */
export interface OpenEscrow {
  id: string
  collectionId: string
  payerId: string
  receiverId: string | null
  parentEscrowId?: string | null
  coin: { reference: string; decimals: number }
  rate: string
  quote: ReturnType<typeof computeQuote>
  now: Date
}

export class EscrowInitiation {
  constructor(private readonly deps: InitiateDeps) {}

  /** An active coin by reference; anything else is 400 at `path`. */
  async coin(reference: string, path = '/coin') {
    return this.deps.coins.get(reference).catch((err) => {
      if (err instanceof AppError) throw errors.field(path, 'unknown or inactive coin')
      throw err
    })
  }

  /** The quote of a price in USD cents in a coin at its current rate (#13's arithmetic). */
  async quote(cents: bigint, coin: { reference: string; decimals: number }, path = '/amount') {
    const rate = await this.deps.transactions.requireRate(coin.reference)
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
   * ledger account and the escrow row with its quote, in one statement. `e.id` must be new.
   * Returns the payment address and the row.
   */
  async open(tx: Tx, e: OpenEscrow): Promise<{ address: string; expiresAt: Date; row: EscrowRow }> {
    // The escrow's id is new, so its key and account are too: both written by the escrow's insert.
    const key = this.deps.keys.newOwnerKey(tx, 'escrow', e.id)
    const account = this.deps.ledger.newOwnerAccount(tx, 'escrow', e.id, e.coin.reference)
    const expiresAt = new Date(e.now.getTime() + QUOTE_VALIDITY_MS)
    const q = e.quote
    const row = await escrowRepo.insert(tx, [key.write, account.write], {
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
    return { address: key.address, expiresAt, row }
  }

  /** #13: validates the request, quotes the price and opens the escrow with its collection. */
  initiate(payerId: string, input: InitiateInput) {
    return initiateEscrow(this.deps, this, payerId, input)
  }
}

async function initiateEscrow(
  deps: InitiateDeps,
  escrow: EscrowInitiation,
  payerId: string,
  input: InitiateInput,
) {
  const { db, clock, chain, collections } = deps
  const title = input.title.trim()
  const description = input.description.trim()
  if (!title) throw errors.field('/title', 'must not be blank')
  if (!description) throw errors.field('/description', 'must not be blank')
  let cents: bigint
  try {
    cents = usdToCents(input.amount)
  } catch (err) {
    if (err instanceof QuoteError) throw errors.field('/amount', err.message)
    throw err
  }
  const coin = await escrow.coin(input.coin)
  const now = clock.now()
  if (input.dueDate !== undefined) {
    const d = new Date(`${input.dueDate}T00:00:00.000Z`)
    if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== input.dueDate)
      throw errors.field('/dueDate', 'dueDate must be a real date, YYYY-MM-DD')
    if (input.dueDate < now.toISOString().slice(0, 10))
      throw errors.field('/dueDate', 'dueDate must be today or later')
  }
  if (input.receiverId === payerId) throw errors.field('/receiverId', 'the receiver cannot be yourself')
  const receiver = await escrowRepo.userLive(db, input.receiverId)
  if (!receiver) throw errors.notFound('receiver')

  const { rate, quote } = await escrow.quote(cents, coin)
  const escrowId = newId(now.getTime())
  // The parent's payment state decides: what was credited to it counts first.
  if (input.parent) {
    const parentEscrow = (await collections.escrowState(db, input.parent))?.escrowId
    if (parentEscrow) await deps.credits.absorb(parentEscrow)
  }
  const parent = input.parent ? await parentFor(deps, payerId, input.parent, coin.reference) : undefined
  const { collectionId, address, expiresAt } = await db.transaction().execute(async (tx) => {
    const fields = {
      name: title,
      description,
      paymentFee: centsToDecimal(cents),
      ...(input.dueDate !== undefined ? { deliveryDate: input.dueDate } : {}),
      isPrivate: input.isPrivate ?? false,
    }
    const link = {
      receiverId: input.receiverId,
      escrowId,
      isFundingRequest: input.isFundingRequest ?? false,
    }
    const collectionId = parent
      ? await collections.createIn(
          tx,
          payerId,
          { type: 'job', ...fields, parent: parent.collectionId, isParentFunded: true },
          link,
        )
      : await collections.createForEscrow(tx, payerId, { ...fields, ...link })
    const opened = await escrow.open(tx, {
      id: escrowId,
      collectionId,
      payerId,
      receiverId: input.receiverId,
      parentEscrowId: parent?.escrowId ?? null,
      coin,
      rate,
      quote,
      now,
    })
    if (parent) await fundChild(deps, tx, parent.escrowId, opened.address, quote.amountToPay, rate)
    return { collectionId, ...opened }
  })
  const d = coin.decimals
  return {
    coin: coin.reference,
    address: getAddress(address),
    escrowAmount: centsToNumber(cents),
    coinEscrowAmount: unitsToNumber(quote.coinEscrowAmount, d),
    expectedFee: unitsToNumber(quote.expectedFee, d),
    amountToPay: unitsToNumber(quote.amountToPay, d),
    usdFee: centsToNumber(quote.usdFeeCents),
    usdAmount: centsToNumber(quote.usdAmountCents),
    feePercentage: deps.platformFeePercent,
    rate: Number(rate),
    chainId: String(chain.chainId),
    contractAddress: coin.contractAddress ?? '',
    paymentMethods: deps.cardPayments ? ['crypto', 'card'] : ['crypto'],
    collectionId,
    escrowId,
    expiresAt: expiresAt.toISOString(),
    decimals: d,
    coinEscrowAmountBaseUnits: quote.coinEscrowAmount.toString(),
    expectedFeeBaseUnits: quote.expectedFee.toString(),
    amountToPayBaseUnits: quote.amountToPay.toString(),
  }
}
