// Admin API resources of the console's dashboard and plots: custody per coin, queue and transfer
// ages, deposits and withdrawals over time. Amounts are base units as decimal strings, with the
// coin's decimals beside them.
import { Type } from 'typebox'
import { Str, Timestamp } from '../../http/schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description })
const Decimals = Type.Union([Type.Integer(), Type.Null()], {
  description: 'decimals of the coin (null for a coin no longer configured)',
})

export const StatsOverview = Type.Object(
  {
    generatedAt: Timestamp,
    balances: Type.Array(
      Type.Object({
        coin: Type.String(),
        decimals: Decimals,
        users: Units("users' wallets (available: less pending holds)"),
        escrow: Units('escrow accounts (available)'),
        withdrawalHolds: Units(
          'reserved by pending ledger holds: withdrawals and in-app payments on their way out, gas reserved at custodial addresses',
        ),
        treasury: Units(
          'platform value parked at custodial addresses: withdrawal fees and gas top-ups (available)',
        ),
        platformFees: Units(
          'platform fees at the fee address, not swept (available; what a sweep in flight holds is in reserved)',
        ),
        reserved: Units('held amounts of the accounts above (equal to withdrawalHolds in a sound ledger)'),
        platformLoss: Units(
          'what the platform bore when deposits a deep chain reorganisation took back were reversed after their owners had spent them (the platform_loss account; not part of total)',
        ),
        total: Units('everything the ledger says is held in custody'),
      }),
    ),
    gasWallet: Type.Object(
      {
        address: Type.String(),
        coin: Type.Union([Type.String(), Type.Null()], { description: 'the native coin that pays gas' }),
        decimals: Decimals,
        balance: Type.Union([Units('what the gas wallet holds on chain'), Type.Null()], {
          description: 'null when the chain could not be read',
        }),
      },
      { description: 'the wallet that tops up gas at custodial addresses' },
    ),
    queue: Type.Array(
      Type.Object({
        kind: Type.String(),
        queued: Type.Integer(),
        ready: Type.Integer({ description: 'queued jobs whose time has come' }),
        running: Type.Integer(),
        failed: Type.Integer({ description: 'jobs that failed for good' }),
        oldestReadySeconds: Type.Union([Type.Integer(), Type.Null()], {
          description: 'how long the oldest due job has waited',
        }),
      }),
    ),
    transfers: Type.Array(
      Type.Object({
        status: Type.String({ description: '`queued`, `signed`, `sent` or `failed`' }),
        purpose: Type.String(),
        coin: Type.String(),
        transfers: Type.Integer(),
        oldestSeconds: Type.Integer({ description: 'age of the oldest one' }),
      }),
    ),
  },
  {
    $id: 'AdminStatsOverview',
    examples: [
      {
        generatedAt: '2026-01-01T12:00:00.000Z',
        balances: [
          {
            coin: 'usdc',
            decimals: 6,
            users: '1250000000',
            escrow: '300000000',
            withdrawalHolds: '25000000',
            treasury: '0',
            platformFees: '15000000',
            platformLoss: '0',
            reserved: '25000000',
            total: '1590000000',
          },
        ],
        gasWallet: {
          address: '0x8626f6940e2eb28930efb4cef49b2d1f2c9c1199',
          coin: 'avax',
          decimals: 18,
          balance: '4200000000000000000',
        },
        queue: [{ kind: 'outgoing.send', queued: 3, ready: 1, running: 1, failed: 0, oldestReadySeconds: 4 }],
        transfers: [{ status: 'sent', purpose: 'withdrawal', coin: 'usdc', transfers: 2, oldestSeconds: 95 }],
      },
    ],
  },
)

export const TransferAges = Type.Object(
  {
    generatedAt: Timestamp,
    open: Type.Integer({ description: 'open transfers (queued, signed, sent)' }),
    buckets: Type.Array(
      Type.Object({
        label: Type.String(),
        fromSeconds: Type.Integer(),
        toSeconds: Type.Union([Type.Integer(), Type.Null()], { description: 'null: open-ended' }),
        queued: Type.Integer(),
        signed: Type.Integer(),
        sent: Type.Integer(),
        total: Type.Integer(),
      }),
    ),
  },
  {
    $id: 'AdminTransferAges',
    examples: [
      {
        generatedAt: '2026-01-01T12:00:00.000Z',
        open: 3,
        buckets: [
          { label: '< 1 min', fromSeconds: 0, toSeconds: 60, queued: 1, signed: 0, sent: 1, total: 2 },
          { label: '1–5 min', fromSeconds: 60, toSeconds: 300, queued: 0, signed: 0, sent: 1, total: 1 },
          { label: '5–15 min', fromSeconds: 300, toSeconds: 900, queued: 0, signed: 0, sent: 0, total: 0 },
          { label: '15–60 min', fromSeconds: 900, toSeconds: 3600, queued: 0, signed: 0, sent: 0, total: 0 },
          { label: '1–6 h', fromSeconds: 3600, toSeconds: 21600, queued: 0, signed: 0, sent: 0, total: 0 },
          { label: '6–24 h', fromSeconds: 21600, toSeconds: 86400, queued: 0, signed: 0, sent: 0, total: 0 },
          { label: '> 1 day', fromSeconds: 86400, toSeconds: null, queued: 0, signed: 0, sent: 0, total: 0 },
        ],
      },
    ],
  },
)

export const FlowsQuery = Type.Object(
  {
    coin: Str(40, { minLength: 1, description: 'coin reference' }),
    days: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 90,
        default: 14,
        description: 'hours are the buckets up to 2 days',
      }),
    ),
  },
  { additionalProperties: false },
)

export const Flows = Type.Object(
  {
    coin: Type.String(),
    decimals: Decimals,
    unit: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    buckets: Type.Array(
      Type.Object({
        at: Timestamp,
        deposits: Units('deposits credited from the chain'),
        depositCount: Type.Integer(),
        withdrawals: Units(
          'value that left for outside addresses: completed withdrawals to an address that is not the platform’s, and transfers signed outside the platform to one (fees apart); in-app escrow payments, escrow and fee legs, sweeps, gas top-ups and withdrawals to another custodial address are not counted',
        ),
        withdrawalCount: Type.Integer(),
      }),
    ),
  },
  {
    $id: 'AdminFlows',
    examples: [
      {
        coin: 'usdc',
        decimals: 6,
        unit: 'day',
        buckets: [
          {
            at: '2026-01-01T00:00:00.000Z',
            deposits: '500000000',
            depositCount: 3,
            withdrawals: '120000000',
            withdrawalCount: 1,
          },
          {
            at: '2026-01-02T00:00:00.000Z',
            deposits: '0',
            depositCount: 0,
            withdrawals: '0',
            withdrawalCount: 0,
          },
        ],
      },
    ],
  },
)
