// The audit log of admin actions: who, what, on which target, why, from which request and address,
// and when. A row is written in the same database transaction as the action it records, so an
// action that rolls back leaves no row and an action that commits always has one.
import type { Db, Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
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
  action: string
  targetType: string
  targetId: string
  reason: string
  requestId: string | null
  ip: string | null
  details: Record<string, unknown>
  createdAt: Date
}

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

export class AdminAudit {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

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

  async list(f: AuditFilter): Promise<{ total: number; rows: AuditRecord[] }> {
    return adminRepo.listAudit(this.deps.db, f)
  }
}
