// Collaboration on a job, from posting to a paid review: invites, applications, delivery,
// completion, cancellation, disputes and reviews, every step checked by the job's state machine
// (states.ts). Registered after collections and escrow, whose services it drives.
import type { FeatureModule } from '../core.ts'
import { applicationRoutes } from './routes-applications.ts'
import { disputeRoutes } from './routes-disputes.ts'
import { inviteRoutes } from './routes-invites.ts'
import { jobRoutes } from './routes-jobs.ts'
import { reviewRoutes } from './routes-reviews.ts'
import { ApplicationService } from './service-applications.ts'
import { DisputeService } from './service-disputes.ts'
import { InviteService } from './service-invites.ts'
import { LifecycleService, SPLIT_JOB, type SplitJob } from './service-lifecycle.ts'
import { ReviewService } from './service-reviews.ts'
import { UpdateService } from './service-updates.ts'

export interface WorkServices {
  invites: InviteService
  applications: ApplicationService
  lifecycle: LifecycleService
  updates: UpdateService
  disputes: DisputeService
  reviews: ReviewService
}

declare module '../core.ts' {
  interface Services {
    work: WorkServices
  }
}

export const workModule: FeatureModule = async ({ app, db, clock, services }) => {
  const deps = {
    db,
    clock,
    jobs: services.jobs,
    collections: services.collections,
    escrow: services.escrow,
    files: services.files,
    accounts: services.accounts,
  }
  const lifecycle = new LifecycleService(deps)
  const work: WorkServices = {
    invites: new InviteService(deps),
    applications: new ApplicationService(deps),
    lifecycle,
    updates: new UpdateService(deps, lifecycle),
    disputes: new DisputeService(deps),
    reviews: new ReviewService(deps),
  }
  services.work = work
  // The split of a cancelled or disputed job's escrow: retried with backoff until it is sent
  // (the chain may be down, a coin halted); each run is idempotent.
  services.jobs.register(SPLIT_JOB, (job: SplitJob) => work.disputes.payOut(job), {
    maxAttempts: 1000,
    baseDelayMs: 5000,
  })
  await app.register(inviteRoutes, { invites: work.invites })
  await app.register(applicationRoutes, { applications: work.applications })
  await app.register(jobRoutes, { collections: services.collections, lifecycle, updates: work.updates })
  await app.register(disputeRoutes, { disputes: work.disputes })
  await app.register(reviewRoutes, { reviews: work.reviews })
}
