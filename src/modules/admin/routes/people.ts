// The audit log and accounts: search, one account, suspension, and the admin role.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { type ErrorCases, envelope, IdParams, ok } from '../../../http/schemas.ts'
import type { AdminAccess } from '../access.ts'
import { type AdminAudit, AUDIT_EXPORT_MAX } from '../audit.ts'
import {
  AdminUser,
  AuditExportQuery,
  AuditQuery,
  AuditRecord,
  Page,
  ReasonBody,
  RoleBody,
  UserSearchQuery,
} from '../schemas.ts'
import type { AdminUsers } from '../users.ts'
import { actorOf, adminErrors, createdRange, guardElevated, pageOf, security, tags } from './common.ts'

const AuditPage = Page(AuditRecord, 'AdminAuditPage')

/** The audit filters of a query, `from` not after `to`. */
function auditFilter(q: {
  actor?: string | undefined
  action?: string | undefined
  target?: string | undefined
  targetType?: string | undefined
  from?: string | undefined
  to?: string | undefined
}) {
  const { from, to } = createdRange(q)
  return { actorId: q.actor, action: q.action, targetId: q.target, targetType: q.targetType, from, to }
}
const UserPage = Page(AdminUser, 'AdminUserPage')
const USER_NOT_FOUND = 'no live account has this id'

export const adminPeopleRoutes: FastifyPluginAsyncTypebox<{
  access: AdminAccess
  audit: AdminAudit
  users: AdminUsers
}> = async (app, { access, audit, users }) => {
  guardElevated(app, access)

  app.get(
    '/v1/admin/audit/export',
    {
      schema: {
        operationId: 'adminAuditExport',
        summary: 'The audit log as a CSV file, newest first, with the filters of the list',
        description: `Every matching row up to ${AUDIT_EXPORT_MAX} (X-Total-Count tells how many matched; narrow the time range for more). Columns: createdAt, actorId, actorEmail, action, targetType, targetId, reason, requestId, ip, details (JSON). A value a spreadsheet would run as a formula is prefixed with an apostrophe.`,
        tags,
        security,
        querystring: AuditExportQuery,
        response: {
          200: {
            description: 'text/csv, as an attachment',
            content: {
              'text/csv': {
                schema: { type: 'string' },
                example:
                  'createdAt,actorId,actorEmail,action,targetType,targetId,reason,requestId,ip,details\r\n2026-01-01T12:00:00.000Z,65f1c0a2b3c4d5e6f7a8b9c0,ops@example.com,user.suspend,user,65f1c0a2b3c4d5e6f7a8b9c7,Fraud report 17,0b7e6c1e-8d7f-4c55-9a65-1f0d2f0a6b3e,203.0.113.9,{}\r\n',
              },
            },
          },
          ...adminErrors(),
        },
      },
    },
    async (req, reply) => {
      const { csv, total } = await audit.exportCsv(auditFilter(req.query))
      const day = new Date().toISOString().slice(0, 10)
      return reply
        .header('content-disposition', `attachment; filename="audit-${day}.csv"`)
        .header('x-total-count', String(total))
        .header('cache-control', 'no-store')
        .type('text/csv; charset=utf-8')
        .send(csv)
    },
  )

  app.get(
    '/v1/admin/audit',
    {
      schema: {
        operationId: 'adminAudit',
        summary: 'The audit log, newest first, filtered by actor, action, target and time range',
        tags,
        security,
        querystring: AuditQuery,
        response: { 200: envelope(AuditPage), ...adminErrors() },
      },
    },
    async (req) => {
      const q = req.query
      const { page, limit } = pageOf(q)
      const { total, rows } = await audit.list({ page, limit, ...auditFilter(q) })
      return ok({
        page,
        pages: Math.ceil(total / limit),
        limit,
        total,
        data: rows.map(({ id, ...r }) => ({ _id: id, ...r })),
      })
    },
  )

  app.get(
    '/v1/admin/users',
    {
      schema: {
        operationId: 'adminUsers',
        summary:
          'Search accounts (email, userName, name, id or web3 address) by role, suspension and creation window (`from`, `to`), newest first',
        tags,
        security,
        querystring: UserSearchQuery,
        response: { 200: envelope(UserPage), ...adminErrors() },
      },
    },
    async (req) => ok(await users.search({ ...req.query, ...pageOf(req.query), ...createdRange(req.query) })),
  )

  app.get(
    '/v1/admin/users/:id',
    {
      schema: {
        operationId: 'adminUser',
        summary: 'One account',
        tags,
        security,
        params: IdParams,
        response: { 200: envelope(AdminUser), ...adminErrors({ NOT_FOUND: USER_NOT_FOUND }) },
      },
    },
    async (req) => ok(await users.get(req.params.id)),
  )

  const action = (
    path: string,
    operationId: string,
    summary: string,
    message: string,
    conflicts: ErrorCases,
    run: (actor: ReturnType<typeof actorOf>, id: string, reason: string) => Promise<unknown>,
    extra: ErrorCases = {},
  ) =>
    app.post(
      path,
      {
        schema: {
          operationId,
          summary,
          tags,
          security,
          params: IdParams,
          body: ReasonBody,
          response: {
            200: envelope(AdminUser, message),
            ...adminErrors({ NOT_FOUND: USER_NOT_FOUND, ...conflicts, ...extra }),
          },
        },
      },
      async (req) => ok(await run(actorOf(req), req.params.id, req.body.reason), message),
    )

  app.post(
    '/v1/admin/sessions/revoke-all',
    {
      schema: {
        operationId: 'adminRevokeAllSessions',
        summary: 'Revoke every session of every account, yours too: everyone signs in again',
        description:
          'For a leaked JWT_SECRET (rotate it as well) or a database restored from a backup. Every process refuses the revoked tokens on its next request; the audit row (`sessions.revoke-all`) counts them.',
        tags,
        security,
        body: ReasonBody,
        response: {
          200: envelope(
            Type.Object(
              { revoked: Type.Integer({ description: 'sessions that were live' }) },
              { examples: [{ revoked: 1284 }] },
            ),
            'Every session revoked',
          ),
          ...adminErrors(),
        },
      },
    },
    async (req) => ok(await users.revokeAllSessions(actorOf(req), req.body.reason), 'Every session revoked'),
  )

  action(
    '/v1/admin/users/:id/suspend',
    'adminSuspendUser',
    'Suspend an account: it cannot log in, and every session it has is revoked at once',
    'User suspended',
    {
      ACCOUNT_ALREADY_SUSPENDED: 'the account is suspended already',
      OWN_ACCOUNT_REFUSED: 'the account is the caller’s',
      LAST_ADMIN: 'the account is the last admin',
    },
    (a, id, r) => users.suspend(a, id, r),
  )
  action(
    '/v1/admin/users/:id/unsuspend',
    'adminUnsuspendUser',
    'Lift a suspension (the account logs in again; its old sessions stay revoked)',
    'User unsuspended',
    { ACCOUNT_NOT_SUSPENDED: 'the account is not suspended' },
    (a, id, r) => users.unsuspend(a, id, r),
  )
  app.post(
    '/v1/admin/users/:id/role',
    {
      schema: {
        operationId: 'adminSetRole',
        summary: 'Set the operator role: admin, finance (money), support (customers) or user (none)',
        description:
          'The rules of the admin role hold for every change: never one’s own role, an ADMIN_EMAILS account’s, or the last admin’s; a role is given only to a verified account that is not suspended. The account’s elevated sessions end (the new role applies from its next second factor). Audited as `role.set` with the previous role.',
        tags,
        security,
        params: IdParams,
        body: RoleBody,
        response: {
          200: envelope(AdminUser, 'Role set'),
          ...adminErrors({
            NOT_FOUND: USER_NOT_FOUND,
            ROLE_ALREADY_SET: 'the account has this role already',
            OWN_ACCOUNT_REFUSED: 'the account is the caller’s',
            ROLE_SET_BY_CONFIG: 'the account is named by ADMIN_EMAILS',
            LAST_ADMIN: 'the account is the last admin',
            ACCOUNT_NOT_VERIFIED: 'the account is not verified',
            ACCOUNT_SUSPENDED: 'the account is suspended',
          }),
        },
      },
    },
    async (req) =>
      ok(await users.setRole(actorOf(req), req.params.id, req.body.role, req.body.reason), 'Role set'),
  )

  action(
    '/v1/admin/users/:id/admin',
    'adminGrantRole',
    'Give the admin role',
    'Admin role granted',
    { ROLE_ALREADY_SET: 'the account is an admin already' },
    (a, id, r) => users.grantAdmin(a, id, r),
    { ACCOUNT_NOT_VERIFIED: 'the account is not verified', ACCOUNT_SUSPENDED: 'the account is suspended' },
  )
  action(
    '/v1/admin/users/:id/admin/revoke',
    'adminRevokeRole',
    'Take the admin role away (never from oneself, from an ADMIN_EMAILS account, or from the last admin)',
    'Admin role revoked',
    {
      ROLE_NOT_HELD: 'the account is not an admin',
      OWN_ACCOUNT_REFUSED: 'the account is the caller’s',
      ROLE_SET_BY_CONFIG: 'the account is named by ADMIN_EMAILS',
      LAST_ADMIN: 'the account is the last admin',
    },
    (a, id, r) => users.revokeAdmin(a, id, r),
  )
}
