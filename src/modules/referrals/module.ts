// Referrals: validation of a code, the referrer's referred accounts and stats, invitations by
// e-mail, and the referral events. Built right after the events (sign-up needs it).
import type { FastifyInstance } from 'fastify'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { EventService } from '../events/types.ts'
import { referralRoutes } from './routes.ts'
import { ReferralService } from './service.ts'

export function buildReferrals(d: {
  db: Db
  clock: Clock
  config: Config
  jobs: JobQueue
  events: EventService
}) {
  const referrals = new ReferralService({
    db: d.db,
    clock: d.clock,
    jobs: d.jobs,
    events: d.events,
    limit: d.config.referralLimit,
    invitesPerDay: d.config.referralInvitesPerDay,
    publicUrl: d.config.publicUrl,
  })
  return { referrals }
}

export async function referralsHttp(app: FastifyInstance, s: { referrals: ReferralService; config: Config }) {
  await app.register(referralRoutes, { referrals: s.referrals, config: s.config })
}
