// The audit log of admin actions: who, what, on which target, why, from which request and address,
// and when. A row is written in the same database transaction as the action it records, so an
// action that rolls back leaves no row and an action that commits always has one.
import type { Db, Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { AccountModeration } from '../account/types.ts'
import { type AuditFilter, adminRepo } from './repo.ts'

/** The admin and request behind an action. */
export interface AdminActor {
  userId: string
  sessionId: string
  requestId: string | null
  ip: string | null
}

export interface AuditEntry {
  action: string
  targetType: string
  targetId: string
  reason: string
  details?: Record<string, unknown>
}

export interface AuditRecord {
  id: string
  actorId: string
  /** the admin's email (null for `system`, or an account erased since) */
  actorEmail?: string | null
  action: string
  targetType: string
  targetId: string
  reason: string
  requestId: string | null
  ip: string | null
  details: Record<string, unknown>
  createdAt: Date
}

/** The most rows one export holds: narrow the time range for more. */
export const AUDIT_EXPORT_MAX = 10_000

const CSV_COLUMNS = [
  'createdAt',
  'actorId',
  'actorEmail',
  'action',
  'targetType',
  'targetId',
  'reason',
  'requestId',
  'ip',
  'details',
] as const

/**
 * One CSV field: quoted when it holds a separator, a quote or a line break; a value a spreadsheet
 * would run as a formula (=, +, -, @, tab, CR first) is prefixed with an apostrophe.
 */
function csvField(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ''
      : value instanceof Date
        ? value.toISOString()
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

export class AdminAudit {
  constructor(
    private readonly deps: { db: Db; clock: Clock; moderation: Pick<AccountModeration, 'emails'> },
  ) {}

  async record(tx: Tx, actor: AdminActor, entry: AuditEntry): Promise<string> {
    const id = newId()
    await adminRepo.insertAudit(tx, {
      id,
      actorId: actor.userId,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      reason: entry.reason,
      requestId: actor.requestId,
      ip: actor.ip,
      details: json(entry.details ?? {}),
      createdAt: this.deps.clock.now(),
    })
    return id
  }

  /** A page of the log, each row with its admin's email. */
  async list(f: AuditFilter): Promise<{ total: number; rows: AuditRecord[] }> {
    const { total, rows } = await adminRepo.listAudit(this.deps.db, f)
    const emails = await this.deps.moderation.emails(
      this.deps.db,
      rows.map((r) => r.actorId).filter((id) => id !== 'system'),
    )
    return { total, rows: rows.map((r) => ({ ...r, actorEmail: emails.get(r.actorId) ?? null })) }
  }

  /** The log as CSV (RFC 4180, newest first), at most AUDIT_EXPORT_MAX rows; `total` says if cut. */
  async exportCsv(
    f: Omit<AuditFilter, 'page' | 'limit'>,
  ): Promise<{ csv: string; rows: number; total: number }> {
    const { total, rows } = await this.list({ ...f, page: 1, limit: AUDIT_EXPORT_MAX })
    const lines = [CSV_COLUMNS.join(',')]
    for (const r of rows) lines.push(CSV_COLUMNS.map((c) => csvField(r[c])).join(','))
    return { csv: `${lines.join('\r\n')}\r\n`, rows: rows.length, total }
  }
}
