// The escrow module's public contract: request bodies and response shapes of #13–#15 and the
// additions (pay, cancel).
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id } from '../../http/schemas.ts'

export const InitiateBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'the job title (the collection name)' }),
    description: Type.String({ minLength: 1, maxLength: 10_000 }),
    amount: Type.Number({
      exclusiveMinimum: 0,
      description: 'job price in USD, at most two decimals, from 1.00 to 1000000000',
    }),
    coin: Type.String({ minLength: 1, maxLength: 32, description: 'coin reference (e.g. `avax`, `usdc`)' }),
    dueDate: Type.Optional(
      Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: '`YYYY-MM-DD`, today or later (UTC)' }),
    ),
    isPrivate: Type.Optional(Type.Boolean({ default: false })),
    isFundingRequest: Type.Optional(Type.Boolean({ default: false })),
    receiverId: Id('the user the escrow pays out to (not the caller)'),
    parent: Type.Optional(
      Id(
        'a collection of the caller whose escrow is paid: the new escrow becomes its child and is funded from the parent’s escrow (same coin)',
      ),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Landing page',
        description: 'One responsive page with a contact form',
        amount: 150,
        coin: 'avax',
        dueDate: '2031-01-01',
        isPrivate: false,
        isFundingRequest: false,
        receiverId: EX.otherUserId,
      },
    ],
  },
)
export type InitiateInput = Static<typeof InitiateBody>

export const EscrowIdBody = Type.Object(
  { escrowId: Id('the escrow id returned by #13') },
  { additionalProperties: false, examples: [{ escrowId: EX.escrowId }] },
)

export const PayBody = Type.Object(
  {
    escrowId: Id('the escrow to pay'),
    password: Type.String({ minLength: 1, maxLength: 128, description: 'the account password' }),
    code: Type.Optional(
      Type.String({
        pattern: '^[0-9]{6}$',
        description: 'two-factor code; required when two-factor login is on',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ escrowId: EX.escrowId, password: EX.password }] },
)
export type PayInput = Static<typeof PayBody>

/** Base units of a coin, exact, as a decimal string. */
export const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })

/** The example quote's fee, total, rate and chain, alike in every example of a payment to make. */
export const EX_QUOTE_TERMS = {
  expectedFee: 0.3,
  amountToPay: 6.3,
  usdFee: 7.5,
  usdAmount: 157.5,
  feePercentage: 5,
  rate: 25,
  chainId: '31337',
  contractAddress: '',
  paymentMethods: ['crypto'],
  collectionId: EX.collectionId,
}

export const Quote = Type.Object(
  {
    coin: Type.String({ description: 'coin reference' }),
    address: Type.String({ description: 'the escrow payment address (checksummed)' }),
    escrowAmount: Type.Number({ description: 'the job price in USD' }),
    coinEscrowAmount: Type.Number({ description: 'the price in whole coins (rounded up)' }),
    expectedFee: Type.Number({ description: 'the platform fee in whole coins (rounded up)' }),
    amountToPay: Type.Number({ description: 'coinEscrowAmount + expectedFee: send exactly this (or more)' }),
    usdFee: Type.Number({ description: 'the fee in USD' }),
    usdAmount: Type.Number({ description: 'escrowAmount + usdFee' }),
    feePercentage: Type.Number(),
    rate: Type.Number({ description: 'USD per whole coin' }),
    chainId: Type.String(),
    contractAddress: Type.String({ description: 'the token contract; empty for the native coin' }),
    paymentMethods: Type.Array(Type.String()),
    collectionId: Type.String(),
    escrowId: Type.String(),
    expiresAt: Type.String({ format: 'date-time', description: 'end of the quote’s rate guarantee' }),
    decimals: Type.Integer({ description: 'decimals of the coin’s base unit' }),
    coinEscrowAmountBaseUnits: Units('coinEscrowAmount in base units, exact'),
    expectedFeeBaseUnits: Units('expectedFee in base units, exact'),
    amountToPayBaseUnits: Units('amountToPay in base units, exact'),
  },
  {
    $id: 'EscrowQuote',
    description:
      'What to pay into an escrow: the price in USD converted at `rate` into the coin (rounded up), plus the platform fee.',
    examples: [
      {
        coin: 'avax',
        address: EX.escrowAddress,
        escrowAmount: 150,
        coinEscrowAmount: 6,
        ...EX_QUOTE_TERMS,
        escrowId: EX.escrowId,
        expiresAt: '2026-11-23T18:49:33.721Z',
        decimals: 18,
        coinEscrowAmountBaseUnits: '6000000000000000000',
        expectedFeeBaseUnits: '300000000000000000',
        amountToPayBaseUnits: '6300000000000000000',
      },
    ],
  },
)

export const Validation = Type.Object(
  {
    escrowId: Type.String(),
    paymentAmount: Type.Number({ description: 'received so far, in whole coins' }),
    paymentAddress: Type.String(),
    receiverId: Type.String(),
    status: Type.Union([
      Type.Literal('waiting'),
      Type.Literal('paid'),
      Type.Literal('released'),
      Type.Literal('cancelled'),
    ]),
  },
  {
    $id: 'EscrowStatus',
    description: 'What an escrow address received, and the escrow’s state.',
    examples: [
      {
        escrowId: EX.escrowId,
        paymentAmount: 6.3,
        paymentAddress: EX.escrowAddress,
        receiverId: EX.otherUserId,
        status: 'paid',
      },
    ],
  },
)
