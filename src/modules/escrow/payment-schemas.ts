// The public contract of the collection payment API (the client SDK's PaymentModule):
// POST /v1/payment/, /v1/payment/validate and /v1/payment/release, over the escrow of #13–#15.
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id } from '../../http/schemas.ts'

export const FundBody = Type.Object(
  {
    coin: Type.String({ minLength: 1, maxLength: 32, description: 'coin reference (e.g. `avax`, `usdc`)' }),
    collection: Id('the collection to fund (created with POST /v1/collection)'),
    usdValue: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          'the price in USD (at most two decimals, 1.00 to 1000000000); the collection’s paymentFee when absent',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ coin: 'avax', collection: EX.collectionId }] },
)
export type FundInput = Static<typeof FundBody>

/** The client SDK's payment statuses; accepted and ignored by validation. */
export const PaymentStatus = Type.Union(
  ['pending', 'ongoing', 'completed', 'waiting', 'cancelled', 'deleted'].map((s) => Type.Literal(s)),
  { description: 'accepted for the client SDK and ignored: the answer is the escrow’s actual state' },
)

export const CollectionPaymentBody = Type.Object(
  { collection: Id('the funded collection'), status: Type.Optional(PaymentStatus) },
  { additionalProperties: false, examples: [{ collection: EX.collectionId }] },
)
export type CollectionPaymentInput = Static<typeof CollectionPaymentBody>

export const ReleaseBody = Type.Object(
  {
    collection: Id('the funded collection'),
    amount: Type.Number({
      exclusiveMinimum: 0,
      description:
        'USD of the collection’s price to release now, at most two decimals, at most what remains in escrow; the rest stays in escrow',
    }),
  },
  { additionalProperties: false, examples: [{ collection: EX.collectionId, amount: 50 }] },
)
export type ReleaseInput = Static<typeof ReleaseBody>

const CoinText = (description: string) =>
  Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$', description: `${description}; exact decimal text` })
const UsdText = (description: string) =>
  Type.String({ pattern: '^[0-9]+\\.[0-9]{2}$', description: `${description}; two decimals` })

/** The client SDK's IPaymentDataDto, plus the escrow id, the token contract and the quote's end. */
export const PaymentData = Type.Object(
  {
    coin: Type.String({ description: 'coin reference' }),
    address: Type.String({ description: 'the escrow payment address (checksummed)' }),
    collectionAmount: Type.Number({ description: 'the price in USD' }),
    collectionAmountCoin: CoinText('the price in whole coins (rounded up)'),
    expectedFee: CoinText('the platform fee in whole coins (rounded up)'),
    amountToPay: CoinText('collectionAmountCoin + expectedFee: send exactly this (or more)'),
    usdFee: UsdText('the fee in USD'),
    usdAmount: UsdText('collectionAmount + usdFee, in USD'),
    feePercentage: Type.Number(),
    rate: Type.Number({ description: 'USD per whole coin, fixed for this escrow' }),
    chainId: Type.String(),
    escrowId: Type.String({ description: 'the escrow (also usable with /v1/escrow/*)' }),
    contractAddress: Type.String({ description: 'the token contract; empty for the native coin' }),
    expiresAt: Type.String({ format: 'date-time', description: 'end of the quote’s rate guarantee' }),
  },
  {
    $id: 'PaymentData',
    description:
      'The quote of a collection’s escrow: coin amounts as exact decimal text, USD with two decimals.',
    examples: [
      {
        coin: 'avax',
        address: EX.escrowAddress,
        collectionAmount: 150,
        collectionAmountCoin: '6',
        expectedFee: '0.3',
        amountToPay: '6.3',
        usdFee: '7.50',
        usdAmount: '157.50',
        feePercentage: 5,
        rate: 25,
        chainId: '31337',
        escrowId: EX.escrowId,
        contractAddress: '',
        expiresAt: '2026-11-23T18:49:33.721Z',
      },
    ],
  },
)

export const ReleasedData = Type.Object(
  {
    escrowId: Type.String(),
    amount: Type.Number({ description: 'USD released by this call' }),
    releasedAmount: Type.Number({ description: 'USD released so far, this call included' }),
    remainingAmount: Type.Number({ description: 'USD still held in escrow' }),
    payout: CoinText('whole coins sent to the receiver by this call'),
    fee: CoinText('whole coins of fee (network and platform) taken by this call'),
    final: Type.Boolean({
      description:
        'true when this call released all that remained: the escrow becomes `released` once its transfers are confirmed',
    }),
  },
  {
    $id: 'PaymentRelease',
    description: 'What one release call sent: the part in USD and in coins, and what remains in escrow.',
    examples: [
      {
        escrowId: EX.escrowId,
        amount: 50,
        releasedAmount: 50,
        remainingAmount: 100,
        payout: '2',
        fee: '0.1',
        final: false,
      },
    ],
  },
)

/** A call that only sent failed transfers again answers an empty object. */
export const ReleaseAnswer = Type.Union([ReleasedData, Type.Object({}, { additionalProperties: false })])
