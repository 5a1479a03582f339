// Admin API resources about the platform's fees: per coin what the fee address holds, what a sweep
// in flight reserves and what can be swept, the cold address, and the sweeps to it.
import { Type } from 'typebox'
import { exampleOf, NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { EX_ADMIN_ID, EX_TIME, Reason } from './schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^[0-9]+$', description })
const Address = (description: string) => Type.String({ pattern: '^0x[0-9a-f]{40}$', description })
const EX_FEE_ADDRESS = '0x8a791620dd6260079bf849dc5567adc3f2fdc318'
const EX_COLD = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc'

export const FeeSweep = Type.Object(
  {
    _id: Type.String(),
    coin: Type.String(),
    amount: Units('base units swept'),
    amountText: Type.String({ description: 'the amount in whole coins with the symbol' }),
    from: Address('the fee address'),
    to: Address('the cold address'),
    status: Type.Union(
      [Type.Literal('pending'), Type.Literal('sent'), Type.Literal('confirmed'), Type.Literal('failed')],
      {
        description:
          '`pending` (queued, not signed yet), `sent` (signed and broadcast, not mined yet), `confirmed` (mined: the amount left the fee account), `failed` (failed for good: nothing left, the amount is sweepable again)',
      },
    ),
    txHash: Type.Union([Type.String(), Type.Null()]),
    transferId: Type.Union([Type.String(), Type.Null()], {
      description:
        'the outgoing transfer (GET /v1/admin/transfers/{id}; retry, replace and cancel act on it)',
    }),
    transferStatus: Type.Union([Type.String(), Type.Null()]),
    failures: Type.Integer({ description: 'failed attempts so far' }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    reason: Type.String({ description: 'why the admin swept' }),
    requestedBy: Type.String({ description: 'the admin who swept' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    settledAt: NullableTimestamp,
  },
  {
    $id: 'AdminFeeSweep',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9f1',
        coin: 'avax',
        amount: '1250000000000000000',
        amountText: '1.25 AVAX',
        from: EX_FEE_ADDRESS,
        to: EX_COLD,
        status: 'confirmed',
        txHash: '0x3f1c0a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
        transferId: '65f1c0a2b3c4d5e6f7a8b9f2',
        transferStatus: 'completed',
        failures: 0,
        lastError: null,
        reason: 'Monthly sweep to the cold wallet',
        requestedBy: EX_ADMIN_ID,
        createdAt: EX_TIME,
        updatedAt: EX_TIME,
        settledAt: EX_TIME,
      },
    ],
  },
)

export const FeeCoin = Type.Object(
  {
    coin: Type.String(),
    symbol: Type.String(),
    decimals: Type.Integer(),
    isToken: Type.Boolean(),
    active: Type.Boolean(),
    halted: Type.Boolean({ description: 'a halted coin is not swept until it is resumed' }),
    balance: Units('platform fees at the fee address (the fee account), in flight included'),
    reserved: Units('what the sweep in flight reserves (a ledger hold on the fee account)'),
    sweepable: Units('what can be swept now: balance − reserved'),
    sweepableText: Type.String({ description: 'sweepable in whole coins with the symbol' }),
    collected: Units('everything credited to the fee account so far (escrow platform fees)'),
    swept: Units('confirmed sweeps so far'),
    withdrawalFees: Units(
      "fees of completed withdrawals so far; they stay at the users' addresses, where they pay the gas of later transfers, and are not swept",
    ),
    parkedAtAddresses: Units(
      'platform value parked at custodial addresses now (withdrawal fees and gas top-ups, less the gas spent); not swept',
    ),
    coldAddress: Type.Union([Address('where a sweep of this coin goes'), Type.Null()], {
      description: 'null: none is configured and the coin is not swept',
    }),
    coldAddressSource: Type.Union([Type.String(), Type.Null()], {
      description: 'the variable the cold address comes from: FEE_SWEEP_ADDRESS_<COIN> or FEE_SWEEP_ADDRESS',
    }),
    inFlight: Type.Union([FeeSweep, Type.Null()], {
      description: 'the sweep not settled yet (one at a time)',
    }),
    sweeps: Type.Array(FeeSweep, { description: 'the latest sweeps, newest first (at most 10)' }),
  },
  {
    $id: 'AdminFeeCoin',
    examples: [
      {
        coin: 'avax',
        symbol: 'AVAX',
        decimals: 18,
        isToken: false,
        active: true,
        halted: false,
        balance: '2000000000000000000',
        reserved: '0',
        sweepable: '2000000000000000000',
        sweepableText: '2 AVAX',
        collected: '3250000000000000000',
        swept: '1250000000000000000',
        withdrawalFees: '40000000000000000',
        parkedAtAddresses: '95000000000000000',
        coldAddress: EX_COLD,
        coldAddressSource: 'FEE_SWEEP_ADDRESS',
        inFlight: null,
        sweeps: [],
      },
    ],
  },
)

export const FeesOverview = Type.Object(
  {
    feeAddress: Address("the platform's fee address: escrow releases pay their platform fee there"),
    coins: Type.Array(FeeCoin),
  },
  { $id: 'AdminFees', examples: [{ feeAddress: EX_FEE_ADDRESS, coins: [exampleOf(FeeCoin)] }] },
)

export const SweepBody = Type.Object(
  {
    coin: Type.String({ minLength: 1, maxLength: 40, description: 'coin reference', examples: ['avax'] }),
    amount: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,78}$',
        description:
          'base units to sweep (> 0, at most what is sweepable); all that is sweepable when absent',
        examples: ['1250000000000000000'],
      }),
    ),
    reason: Reason,
  },
  {
    additionalProperties: false,
    examples: [{ coin: 'avax', amount: '1250000000000000000', reason: 'Monthly sweep to the cold wallet' }],
  },
)
