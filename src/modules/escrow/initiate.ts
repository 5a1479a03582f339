// Initiating an escrow (#13): the job's collection (a child of a paid parent when `parent` is
// given, funded from it), a fresh payment address and the quote, in one transaction.
import { getAddress } from 'viem'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { centsToDecimal, centsToNumber, unitsToNumber } from '../../platform/money/index.ts'
import { QuoteError, usdToCents } from './quote.ts'
import { escrowRepo } from './repo.ts'
import type { InitiateInput } from './schemas.ts'
import type { EscrowDeps, EscrowService } from './service.ts'
import { fundChild, parentFor } from './trees.ts'

/** #13: validates the request, quotes the price and opens the escrow with its collection. */
export async function initiateEscrow(
  deps: EscrowDeps,
  escrow: Pick<EscrowService, 'coin' | 'quote' | 'open' | 'absorb'>,
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
    if (parentEscrow) await escrow.absorb(parentEscrow)
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
