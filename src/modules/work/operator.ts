// Jobs and disputes as operators see them (the admin console's job and dispute pages and the user
// page's jobs): the job's description, delivery and attachments, its dispute with the evidence and
// the decision. Reads only; the admin API checks the caller's role.
import type { JobRow } from '../collections/types.ts'
import type { WorkDeps } from './context.ts'
import { disputeRepo } from './repo-disputes.ts'
import type { DisputeService } from './service-disputes.ts'

export class WorkOperatorView {
  constructor(
    private readonly deps: Pick<WorkDeps, 'db' | 'collections' | 'files'>,
    private readonly disputes: Pick<DisputeService, 'forOperator'>,
  ) {}

  /** One job with its files and the id of its dispute, or undefined (missing or deleted). */
  async job(id: string) {
    const { db, collections, files } = this.deps
    const row: JobRow | undefined = await collections.jobs.get(db, id)
    if (!row) return undefined
    const [summaries, dispute] = await Promise.all([
      files.summaries(db, [...row.attachmentIds, ...row.deliveryAttachmentIds]),
      disputeRepo.byCollection(db, row.id),
    ])
    const pick = (ids: string[]) => ids.map((f) => summaries.get(f)).filter((f): f is object => !!f)
    return {
      row,
      attachments: pick(row.attachmentIds),
      deliveryAttachments: pick(row.deliveryAttachmentIds),
      dispute: dispute ? { id: dispute.id, status: dispute.status } : null,
    }
  }

  /** A person's newest jobs as creator or talent. */
  jobsOf(userId: string, limit: number) {
    return this.deps.collections.jobs.ofPerson(this.deps.db, userId, limit)
  }

  /** One dispute (by its id or its job's id) with its job, or undefined. */
  async dispute(id: string) {
    const dispute = await this.disputes.forOperator(id)
    if (!dispute) return undefined
    const job = await this.job(dispute.collection)
    return { dispute, job }
  }
}
