// Admin API resources about money: reconciliation runs and halts.
import { Type } from 'typebox'
import { NullableTimestamp, Str, Timestamp } from '../../http/schemas.ts'
import { Reason } from './schemas.ts'

const Units = (description: string) => Type.String({ pattern: '^-?[0-9]+$', description })

export const CoinHalt = Type.Object(
  {
    id: Type.String(),
    coin: Type.String(),
    reason: Type.String({ description: '`ledger_mismatch`, `ledger_invariant`, `reorg` or `manual`' }),
    details: Type.Record(Type.String(), Type.Unknown()),
    haltedBy: Type.String({ description: '`system` or the admin id' }),
    haltedAt: Type.String({ format: 'date-time' }),
  },
  {
    $id: 'AdminCoinHalt',
    examples: [
      {
        id: '65f1c0a2b3c4d5e6f7a8b9e1',
        coin: 'usdc',
        reason: 'manual',
        details: { reason: 'Issuer incident' },
        haltedBy: '65f1c0a2b3c4d5e6f7a8b9c0',
        haltedAt: '2026-01-01T12:00:00.000Z',
      },
    ],
  },
)

export const ReconciliationRun = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('ok'), Type.Literal('mismatch'), Type.Literal('failed')]),
    block: Type.Union([Type.String(), Type.Null()]),
    violations: Type.Array(Type.Unknown()),
    error: Type.Union([Type.String(), Type.Null()]),
    startedAt: Timestamp,
    finishedAt: NullableTimestamp,
    coins: Type.Array(
      Type.Object({
        coin: Type.String(),
        ledgerTotal: Units('base units the ledger says the custodial addresses hold'),
        chainTotal: Units('base units the chain says they hold'),
        drift: Units('chain − ledger'),
        checked: Type.Integer(),
        skipped: Type.Integer({ description: 'addresses with transfers in flight' }),
        mismatches: Type.Array(Type.Unknown()),
      }),
    ),
  },
  {
    $id: 'AdminReconciliationRun',
    examples: [
      {
        id: '65f1c0a2b3c4d5e6f7a8b9f1',
        status: 'ok',
        block: '1042',
        violations: [],
        error: null,
        startedAt: '2026-01-01T12:00:00.000Z',
        finishedAt: '2026-01-01T12:00:01.000Z',
        coins: [
          {
            coin: 'avax',
            ledgerTotal: '5000000000000000000',
            chainTotal: '5000000000000000000',
            drift: '0',
            checked: 3,
            skipped: 0,
            mismatches: [],
          },
        ],
      },
    ],
  },
)

export const ReconciliationReport = Type.Object(
  { halts: Type.Array(CoinHalt), runs: Type.Array(ReconciliationRun) },
  { $id: 'AdminReconciliationReport' },
)

export const RunNowResult = Type.Object(
  {
    id: Type.String(),
    status: Type.Union([Type.Literal('ok'), Type.Literal('mismatch'), Type.Literal('failed')]),
    block: Type.Union([Type.String(), Type.Null()]),
    violations: Type.Array(Type.Unknown()),
    coins: Type.Array(
      Type.Object({
        coin: Type.String(),
        ledgerTotal: Type.String(),
        chainTotal: Type.String(),
        drift: Type.String(),
        checked: Type.Integer(),
        skipped: Type.Integer(),
      }),
    ),
    halted: Type.Array(Type.String(), { description: 'coins this run halted' }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  {
    $id: 'AdminReconciliationResult',
    examples: [
      {
        id: '65f1c0a2b3c4d5e6f7a8b9f1',
        status: 'ok',
        block: '1042',
        violations: [],
        coins: [
          {
            coin: 'avax',
            ledgerTotal: '5000000000000000000',
            chainTotal: '5000000000000000000',
            drift: '0',
            checked: 3,
            skipped: 0,
          },
        ],
        halted: [],
        error: null,
      },
    ],
  },
)

export const ReportQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })) },
  { additionalProperties: false },
)

export const CoinParams = Type.Object(
  { coin: Str(40, { minLength: 1, description: 'coin reference' }) },
  { additionalProperties: false },
)

export const HaltBody = Type.Object({ reason: Reason }, { additionalProperties: false })
