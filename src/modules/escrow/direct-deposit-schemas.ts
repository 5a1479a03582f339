// The public contract of direct deposits (the client SDK's DirectDepositModule): a payment to a
// collection by anyone, without an account, at POST /v1/payment-public/direct-deposit, and its
// status at POST /v1/payment-public/validate.
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Email, Id } from '../../http/schemas.ts'
import { EX_QUOTE_TERMS, Quote, Units } from './schemas.ts'

const ORDER_ID = '6b0483b6bce238a5cbe00a58'
const Address = (description: string) =>
  Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: `${description} (0x and 40 hexadecimal digits)`,
  })

export const DirectDepositBody = Type.Object(
  {
    collection: Id('the collection to pay: a public one, open, with a price'),
    amount: Type.Number({
      exclusiveMinimum: 0,
      description: 'the collection’s price in USD (its `paymentFee`): what the payer agrees to pay',
    }),
    coin: Type.String({ minLength: 1, maxLength: 32, description: 'coin reference (e.g. `avax`, `usdc`)' }),
    email: Type.Optional(Email),
    address: Type.Optional(
      Address('the payer’s wallet address: refunds (expiry, cancellation, overpayment) are sent there'),
    ),
    owner: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 254,
        description: 'the client SDK’s field: the payer’s email or wallet address, as `email` or `address`',
      }),
    ),
    collectionType: Type.Optional(
      Type.Literal('payments', { description: 'the client SDK’s field; accepted and ignored' }),
    ),
    name: Type.Optional(
      Type.String({ maxLength: 200, description: 'the client SDK’s field; accepted and ignored' }),
    ),
    description: Type.Optional(
      Type.String({ maxLength: 2000, description: 'the client SDK’s field; accepted and ignored' }),
    ),
    systemDeposit: Type.Optional(
      Type.Literal(false, {
        description: 'the client SDK’s field; only `false` (system deposits are not public)',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { collection: EX.collectionId, amount: 150, coin: 'avax', email: EX.email, address: EX.outsideAddress },
    ],
  },
)
export type DirectDepositInput = Static<typeof DirectDepositBody>

export const DirectDepositValidateBody = Type.Object(
  {
    collection: Id('the paid collection (`collectionId` of the order)'),
    order: Type.Optional(Id('the order (`orderId`); the collection’s latest order when absent')),
    method: Type.Optional(
      Type.Literal('crypto', { description: 'the client SDK’s field: only on-chain payment is offered' }),
    ),
    status: Type.Optional(
      Type.String({ maxLength: 32, description: 'the client SDK’s field; accepted and ignored' }),
    ),
    owner: Type.Optional(
      Type.String({ maxLength: 254, description: 'the client SDK’s field; accepted and ignored' }),
    ),
    meta: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'the client SDK’s field; accepted and ignored',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ collection: EX.collectionId, order: ORDER_ID }] },
)
export type DirectDepositValidateInput = Static<typeof DirectDepositValidateBody>

/** The fields a direct deposit order shares with an escrow's quote. */
const q = Quote.properties

/** The client SDK's ICreateDirectDepositResponse, plus the order, its end and exact amounts. */
export const DirectDepositOrder = Type.Object(
  {
    coin: q.coin,
    address: Type.String({
      description: 'the order’s own payment address (checksummed): send the coin here',
    }),
    collectionAmount: Type.Number({ description: 'the price in USD' }),
    collectionAmountCoin: Type.Number({ description: 'the price in whole coins (rounded up)' }),
    expectedFee: q.expectedFee,
    amountToPay: Type.Number({ description: 'collectionAmountCoin + expectedFee: send exactly this' }),
    usdFee: q.usdFee,
    usdAmount: Type.Number({ description: 'collectionAmount + usdFee' }),
    feePercentage: q.feePercentage,
    rate: Type.Number({ description: 'USD per whole coin, fixed for this order' }),
    chainId: q.chainId,
    contractAddress: q.contractAddress,
    paymentMethods: Type.Array(Type.String(), {
      description: 'only `crypto`: no card provider is integrated',
    }),
    collectionId: Type.String({ description: 'the paid collection' }),
    orderId: Type.String({ description: 'the order: validate it with POST /v1/payment-public/validate' }),
    expiresAt: Type.String({
      format: 'date-time',
      description: 'the order expires unpaid at this time: what arrived by then is refunded',
    }),
    decimals: q.decimals,
    amountToPayBaseUnits: q.amountToPayBaseUnits,
  },
  {
    $id: 'DirectDepositOrder',
    description: 'A public payment order: what to send, in which coin, to which address, before when.',
    examples: [
      {
        coin: 'avax',
        address: EX.escrowAddress,
        collectionAmount: 150,
        collectionAmountCoin: 6,
        ...EX_QUOTE_TERMS,
        orderId: ORDER_ID,
        expiresAt: '2026-11-23T18:49:33.721Z',
        decimals: 18,
        amountToPayBaseUnits: '6300000000000000000',
      },
    ],
  },
)

export const ORDER_STATUSES = ['pending', 'paid', 'released', 'expired', 'cancelled', 'refunded'] as const
export type OrderStatus = (typeof ORDER_STATUSES)[number]

const RefundState = Type.Object(
  {
    status: Type.Union(
      ['none', 'sending', 'sent', 'failed', 'operator'].map((s) => Type.Literal(s)),
      {
        description:
          '`none`: nothing to return; `sending`/`sent`/`failed`: the refund transfer to the payer’s address; `operator`: the payer gave only an email, an operator returns it',
      },
    ),
    amount: Type.Number({ description: 'whole coins being returned or returned' }),
    txHash: Type.Union([Type.String(), Type.Null()], { description: 'the refund transfer’s hash once sent' }),
  },
  { additionalProperties: false },
)

/** The client SDK's IValidateDirectDepositResponse (an ICollectionDto) with the order's state. */
export const DirectDepositStatus = Type.Object(
  {
    _id: Type.String({ description: 'the collection' }),
    creator: Type.String({ description: 'the collection’s creator (user id)' }),
    name: Type.String(),
    description: Type.String(),
    type: Type.String(),
    status: Type.String({ description: 'the collection’s status' }),
    isFundingRequest: Type.Boolean(),
    escrowPaid: Type.Boolean({
      description: 'true once the collection is funded (by this order or another)',
    }),
    paymentStatus: Type.Union(
      ORDER_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'the order: `pending` (awaiting the full amount), `paid` (it arrived: the collection is funded), `released` (paid out), `expired` (not paid in time), `cancelled` (the collection was cancelled before payment), `refunded` (paid, then returned because the collection was cancelled)',
      },
    ),
    paymentCoin: Type.String(),
    paymentAddress: Type.String({ description: 'the order’s payment address (checksummed)' }),
    expectedAmount: Type.String({ description: 'amountToPay in whole coins, exact decimal text' }),
    usdExpectedAmount: Type.String({ description: 'the price plus the fee in USD, two decimals' }),
    rate: Type.String({ description: 'USD per whole coin of the order' }),
    order: Type.Object(
      {
        id: Type.String(),
        status: Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s))),
        amountToPay: Type.Number({ description: 'whole coins' }),
        received: Type.Number({ description: 'whole coins received so far' }),
        amountToPayBaseUnits: Units('exact'),
        receivedBaseUnits: Units('exact'),
        expiresAt: Type.String({ format: 'date-time' }),
        refund: RefundState,
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'DirectDepositStatus',
    description: 'The paid collection (public fields only) and the order’s state; nothing about the payer.',
    examples: [
      {
        _id: EX.collectionId,
        creator: EX.userId,
        name: 'Landing page',
        description: 'One page, responsive',
        type: 'job',
        status: 'pending',
        isFundingRequest: false,
        escrowPaid: true,
        paymentStatus: 'paid',
        paymentCoin: 'avax',
        paymentAddress: EX.escrowAddress,
        expectedAmount: '6.3',
        usdExpectedAmount: '157.50',
        rate: '25',
        order: {
          id: ORDER_ID,
          status: 'paid',
          amountToPay: 6.3,
          received: 6.3,
          amountToPayBaseUnits: '6300000000000000000',
          receivedBaseUnits: '6300000000000000000',
          expiresAt: '2026-11-23T18:49:33.721Z',
          refund: { status: 'none', amount: 0, txHash: null },
        },
      },
    ],
  },
)
