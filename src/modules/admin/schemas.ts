// The admin API's shared pieces and phase-one resources: the reason every action carries, list
// pages, the admin session, audit records and accounts as operators see them.
import { type TSchema, Type } from 'typebox'
import {
  Code6,
  exampleOf,
  Id,
  NullableTimestamp,
  PaginationQuery,
  Str,
  Timestamp,
} from '../../http/schemas.ts'

/** Why the admin acts: required on every action, kept in the audit log. */
export const Reason = Type.String({
  minLength: 3,
  maxLength: 500,
  pattern: '\\S',
  description: 'why the admin acts (3–500 characters); kept in the audit log',
  examples: ['Customer support ticket 4711: the transfer is stuck'],
})

export const ReasonBody = Type.Object(
  { reason: Reason },
  {
    additionalProperties: false,
    examples: [{ reason: 'Customer support ticket 4711: the transfer is stuck' }],
  },
)

/** A cancellation of a customer's money movement: the operator's note and what the customer is told. */
export const CancelBody = Type.Object(
  {
    reason: Reason,
    customerMessage: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description:
          'what the customer is told (in the mail, the notification and the record); without it they read "cancelled by the platform". The `reason` is never shown to them.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        reason: 'Support ticket 4411: the customer asked to cancel',
        customerMessage: 'Cancelled at your request',
      },
    ],
  },
)

export const EX_ADMIN_ID = '65f1c0a2b3c4d5e6f7a8b9c0'
export const EX_TIME = '2026-01-01T12:00:00.000Z'

/** A page of a list: `page` from 1, `pages`, `limit`, `total` and the items in `data`. */
export function Page<T extends TSchema>(item: T, id: string) {
  return Type.Object(
    {
      page: Type.Integer(),
      pages: Type.Integer(),
      limit: Type.Integer(),
      total: Type.Integer(),
      data: Type.Array(item),
    },
    {
      $id: id,
      examples: [{ page: 1, pages: 1, limit: 12, total: 1, data: [exampleOf(item)] }],
    },
  )
}

export const StaffRoleSchema = Type.Union(
  [Type.Literal('admin'), Type.Literal('finance'), Type.Literal('support')],
  {
    description:
      'the operator role: `admin` (everything), `finance` (read, move and stop money), `support` (read, act for customers)',
  },
)

export const RoleBody = Type.Object(
  {
    role: Type.Union([
      Type.Literal('admin'),
      Type.Literal('finance'),
      Type.Literal('support'),
      Type.Literal('user'),
    ]),
    reason: Reason,
  },
  { additionalProperties: false, examples: [{ role: 'support', reason: 'Joined the support team' }] },
)

export const AdminSession = Type.Object(
  {
    userId: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    elevated: Type.Boolean({ description: 'whether this session may use the admin routes now' }),
    method: Type.Union([Type.Literal('totp'), Type.Literal('passkey'), Type.Literal('email'), Type.Null()], {
      description: 'the second factor that elevated the session',
    }),
    expiresAt: Type.Union([Timestamp, Type.Null()], { description: 'when the elevation ends' }),
    secondFactor: Type.Union(
      [Type.Literal('totp'), Type.Literal('email'), Type.Literal('passkey'), Type.Literal('setup')],
      {
        description:
          '`totp`: send the authenticator app’s code; `email` (only with ADMIN_SECOND_FACTOR=totp-or-email): ask for a code with POST /v1/admin/session/code and send it; `passkey`: no authenticator app, only passkeys: unlock with POST /v1/admin/session/passkey; `setup`: turn on an authenticator app first (POST /v1/account/initiate/2fa with type `google_auth`, then POST /v1/account/activate/2fa). With `passkeys` above 0 a passkey unlocks the session whatever this says.',
      },
    ),
    passkeys: Type.Integer({ minimum: 0, description: 'how many passkeys the operator registered' }),
    role: StaffRoleSchema,
    permissions: Type.Array(
      Type.Union([
        Type.Literal('read'),
        Type.Literal('customer'),
        Type.Literal('money'),
        Type.Literal('admin'),
      ]),
      {
        description:
          'what the role may do: `read` every list and page, `customer` act for a customer (suspend, re-scan a deposit), `money` move or stop money, `admin` configure the platform and its operators, decide disputes',
      },
    ),
    idleExpiresAt: Type.String({
      format: 'date-time',
      description: 'the session is revoked when no admin request comes before this (ADMIN_IDLE_TIMEOUT_MS)',
    }),
  },
  {
    $id: 'AdminSession',
    examples: [
      {
        userId: '65f1c0a2b3c4d5e6f7a8b9c0',
        email: 'ops@example.com',
        elevated: true,
        method: 'totp',
        expiresAt: '2026-01-01T12:15:00.000Z',
        secondFactor: 'totp',
        passkeys: 1,
        role: 'finance',
        permissions: ['read', 'money'],
        idleExpiresAt: '2026-01-01T16:00:00.000Z',
      },
    ],
  },
)

export const ElevateBody = Type.Object(
  { code: Code6 },
  { additionalProperties: false, examples: [{ code: '123456' }] },
)

export const AuditRecord = Type.Object(
  {
    _id: Type.String(),
    actorId: Type.String({
      description:
        'the admin, or `system` for the events of settlement itself (`chain.reorg`, `coin.halted`, `coin.resumed`, `reorg.finding`, `reorg.reversed`, `reorg.kept`, `reconciliation.*`)',
    }),
    actorEmail: Type.Union([Type.String(), Type.Null()], {
      description: "the admin's email; null for `system` (or an account erased since)",
    }),
    action: Type.String({ description: 'e.g. `user.suspend`, `transfer.replace`, `chain.reorg`' }),
    targetType: Type.String({
      description: 'e.g. `user`, `transfer`, `coin`, `reorg` (a system event: the first word of its action)',
    }),
    targetId: Type.String(),
    reason: Type.String(),
    requestId: Type.Union([Type.String(), Type.Null()]),
    ip: Type.Union([Type.String(), Type.Null()]),
    details: Type.Record(Type.String(), Type.Unknown()),
    createdAt: Timestamp,
  },
  {
    $id: 'AdminAuditRecord',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9d1',
        actorId: EX_ADMIN_ID,
        actorEmail: 'ops@example.com',
        action: 'user.suspend',
        targetType: 'user',
        targetId: '65f1c0a2b3c4d5e6f7a8b9c7',
        reason: 'Fraud report 17',
        requestId: '0b7e6c1e-8d7f-4c55-9a65-1f0d2f0a6b3e',
        ip: '203.0.113.9',
        details: {},
        createdAt: EX_TIME,
      },
    ],
  },
)

/** A list's creation window: `from` inclusive, `to` exclusive (`from` after `to` is refused). */
export const CreatedRange = {
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'created at or after (inclusive)', examples: [EX_TIME] }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'created before (exclusive)', examples: [EX_TIME] }),
  ),
}

const AuditFilters = {
  actor: Type.Optional(Id('the admin who acted')),
  action: Type.Optional(Str(80, { minLength: 1 })),
  target: Type.Optional(Str(100, { minLength: 1, description: 'the target id' })),
  targetType: Type.Optional(Str(40, { minLength: 1 })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'before' })),
}

export const AuditQuery = Type.Object(
  { ...PaginationQuery, ...AuditFilters },
  { additionalProperties: false },
)

/** The filters of the audit log's CSV export (no pages: the export holds every matching row). */
export const AuditExportQuery = Type.Object(AuditFilters, { additionalProperties: false })

export const AdminUser = Type.Object(
  {
    _id: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    firstName: Type.String(),
    lastName: Type.String(),
    userName: Type.String(),
    role: Type.String({ description: '`admin` or `user`' }),
    isVerified: Type.Boolean(),
    twoFaEnabled: Type.Boolean(),
    twoFaType: Type.String(),
    accountType: Type.String(),
    web3Address: Type.Union([Type.String(), Type.Null()]),
    suspended: Type.Boolean(),
    suspendedAt: NullableTimestamp,
    suspendedReason: Type.Union([Type.String(), Type.Null()]),
    lastLoginAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  {
    $id: 'AdminUser',
    examples: [
      {
        _id: '65f1c0a2b3c4d5e6f7a8b9c7',
        email: 'ada@example.com',
        firstName: 'Ada',
        lastName: 'Lovelace',
        userName: 'ada',
        role: 'user',
        isVerified: true,
        twoFaEnabled: false,
        twoFaType: '',
        accountType: 'email',
        web3Address: null,
        suspended: true,
        suspendedAt: EX_TIME,
        suspendedReason: 'Fraud report 17',
        lastLoginAt: EX_TIME,
        createdAt: EX_TIME,
      },
    ],
  },
)

export const UserSearchQuery = Type.Object(
  {
    ...PaginationQuery,
    q: Type.Optional(
      Str(200, { description: 'part of the email, userName or name; or a whole id or web3 address' }),
    ),
    role: Type.Optional(
      Type.Union([
        Type.Literal('admin'),
        Type.Literal('finance'),
        Type.Literal('support'),
        Type.Literal('user'),
      ]),
    ),
    suspended: Type.Optional(Type.Boolean()),
    ...CreatedRange,
  },
  { additionalProperties: false },
)
