// Collaboration on a job, from posting to a paid review: invites, applications, delivery,
// completion, cancellation, disputes and reviews, every step checked by the job's state machine
// (collections/states.ts). Built after collections and escrow, whose services it drives.
import type { FastifyInstance } from 'fastify'
import type { CollectionService } from '../collections/types.ts'
import type { WorkDeps } from './context.ts'
import { WorkOperatorView } from './operator.ts'
import { applicationRoutes } from './routes-applications.ts'
import { disputeRoutes } from './routes-disputes.ts'
import { inviteRoutes } from './routes-invites.ts'
import { jobRoutes } from './routes-jobs.ts'
import { reviewRoutes } from './routes-reviews.ts'
import { ApplicationService } from './service-applications.ts'
import { DisputeService } from './service-disputes.ts'
import {
  INSPECTION_RELEASE,
  INSPECTION_REMINDER,
  type InspectionJob,
  type InspectionReminder,
  InspectionService,
} from './service-inspection.ts'
import { InviteService } from './service-invites.ts'
import { LifecycleService, SPLIT_JOB, type SplitJob } from './service-lifecycle.ts'
import { ReviewService } from './service-reviews.ts'
import { UpdateService } from './service-updates.ts'

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'work.escrow_split': SplitJob
    'work.inspection_release': InspectionJob
    'work.inspection_reminder': InspectionReminder
  }
}

export interface WorkServices {
  invites: InviteService
  applications: ApplicationService
  lifecycle: LifecycleService
  inspection: InspectionService
  updates: UpdateService
  disputes: DisputeService
  reviews: ReviewService
  /** jobs and disputes for the admin API */
  operator: WorkOperatorView
}

export function buildWork(deps: WorkDeps) {
  const inspection = new InspectionService(deps)
  const lifecycle = new LifecycleService(deps, inspection)
  const disputes = new DisputeService(deps)
  const work: WorkServices = {
    invites: new InviteService(deps),
    applications: new ApplicationService(deps),
    lifecycle,
    inspection,
    updates: new UpdateService(deps, lifecycle),
    disputes,
    reviews: new ReviewService(deps),
    operator: new WorkOperatorView(deps, disputes),
  }
  // The split of a cancelled or disputed job's escrow: retried with backoff until it is sent
  // (the chain may be down, a coin halted); each run is idempotent.
  deps.jobs.register(SPLIT_JOB, (job) => work.disputes.payOut(job), { maxAttempts: 1000, baseDelayMs: 5000 })
  // A delivered job's inspection period: the reminders, and the release once it is over (retried
  // like the split: the chain may be down; each run is idempotent).
  deps.jobs.register(INSPECTION_REMINDER, (p) => inspection.remind(p))
  deps.jobs.register(INSPECTION_RELEASE, (p) => inspection.release(p), {
    maxAttempts: 1000,
    baseDelayMs: 5000,
  })
  return { work }
}

export async function workHttp(
  app: FastifyInstance,
  s: { work: WorkServices; collections: CollectionService },
) {
  const { work } = s
  await app.register(inviteRoutes, { invites: work.invites })
  await app.register(applicationRoutes, { applications: work.applications })
  await app.register(jobRoutes, {
    collections: s.collections,
    lifecycle: work.lifecycle,
    updates: work.updates,
  })
  await app.register(disputeRoutes, { disputes: work.disputes })
  await app.register(reviewRoutes, { reviews: work.reviews })
}
