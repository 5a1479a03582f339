// The operator's side of identity verification: the queue of sessions (by status), one session
// with its images behind signed URLs, and the decision (approve, or reject with a reason shown to
// the user), audited in the decision's own transaction.
import type { Db, Tx } from '../../db/index.ts'
import type { VerificationStatus } from '../../db/tables/verification.ts'
import { errors } from '../../http/errors.ts'
import type { AdminActor, AuditEntry } from '../admin/types.ts'
import { type VerificationRow, verificationRepo } from './repo.ts'
import type { VerificationService } from './service.ts'
import { toAdminVerification } from './views.ts'

export class VerificationReview {
  constructor(
    private readonly deps: {
      db: Db
      verification: VerificationService
      audit: { record(tx: Tx, actor: AdminActor, entry: AuditEntry): Promise<string> }
      emails: (ids: string[]) => Promise<Map<string, string>>
    },
  ) {}

  async #views(rows: VerificationRow[]) {
    const { verification } = this.deps
    const [media, emails] = await Promise.all([
      verification.mediaOf(rows.map((r) => r.id)),
      this.deps.emails(rows.map((r) => r.userId)),
    ])
    const out = []
    for (const row of rows) {
      const images = []
      for (const m of media.get(row.id) ?? []) {
        const url = row.deletedAt ? undefined : await verification.signedUrl(row.userId, m.fileId)
        if (url) images.push({ ...m, url })
      }
      out.push(toAdminVerification(row, emails.get(row.userId) ?? null, images))
    }
    return out
  }

  /** Sessions oldest first (what waits longest on top), of one status when given. */
  async list(f: { status?: VerificationStatus | undefined; page: number; limit: number }) {
    const { total, rows } = await verificationRepo.list(this.deps.db, f)
    return { total, rows: await this.#views(rows) }
  }

  async get(id: string) {
    const row = await verificationRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('Verification')
    return (await this.#views([row]))[0]!
  }

  async decide(actor: AdminActor, id: string, approve: boolean, reason: string) {
    const status = approve ? 'approved' : 'declined'
    await this.deps.verification.decide(
      id,
      { status, reason, decidedBy: actor.userId },
      { from: ['submitted'], repeatable: false, actorId: actor.userId },
      async (tx, row) => {
        await this.deps.audit.record(tx, actor, {
          action: approve ? 'verification.approve' : 'verification.reject',
          targetType: 'verification',
          targetId: row.id,
          reason,
          details: { userId: row.userId, provider: row.provider },
        })
      },
    )
    return this.get(id)
  }
}
