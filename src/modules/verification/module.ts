// Identity verification behind a provider (the operator review, or Veriff when its keys are set):
// the user's sessions and images, the operator's review on /v1/admin/verifications, Veriff's signed
// decision webhook, and the check other modules make before an action that needs a verified
// identity (KYC_REQUIRED_FOR). The service is built before withdrawals (which ask it); the
// operator's review after admin (whose audit log it writes).
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { AdminAccess, AdminAudit } from '../admin/types.ts'
import type { EventService } from '../events/types.ts'
import { verificationAdminRoutes } from './admin-routes.ts'
import { FORGET_JOB, forgetDeletedAccounts } from './forget.ts'
import { type IdentityProvider, OperatorReview } from './provider.ts'
import { IdentityRequirement } from './requirement.ts'
import { VerificationReview } from './review.ts'
import { veriffWebhookRoutes, verificationRoutes } from './routes.ts'
import { type VerificationDeps, VerificationService } from './service.ts'
import { VeriffProvider } from './veriff.ts'
import { VeriffWebhook } from './webhook.ts'

export function buildVerification(
  d: Pick<VerificationDeps, 'files' | 'accounts'> & {
    db: Db
    clock: Clock
    log: Logger
    jobs: JobQueue
    events: Pick<EventService, 'emit' | 'subscribe'>
    config: Pick<Config, 'verification' | 'publicUrl'>
  },
) {
  const cfg = d.config.verification
  const provider: IdentityProvider =
    cfg.provider === 'veriff' && cfg.veriff
      ? new VeriffProvider({ ...cfg.veriff, callback: d.config.publicUrl })
      : new OperatorReview(d.config.publicUrl)
  const verification = new VerificationService({
    db: d.db,
    clock: d.clock,
    log: d.log,
    provider,
    files: d.files,
    accounts: d.accounts,
    events: d.events,
    mediaMaxBytes: cfg.mediaMaxBytes,
    maxAttempts: cfg.maxAttempts,
  })
  const identityRequirement = new IdentityRequirement({
    rules: cfg.requiredFor,
    verified: (userId) => verification.isVerified(userId),
    kycStatus: (userId) => verification.kycStatus(userId),
  })
  const veriffWebhook = new VeriffWebhook({ verification, veriff: cfg.veriff })
  // A deleted account's sessions lose their personal data, and their images are removed.
  const forgetting = forgetDeletedAccounts({
    db: d.db,
    clock: d.clock,
    log: d.log,
    jobs: d.jobs,
    files: d.files,
  })
  d.events.subscribe('verification', forgetting.onEvent)
  d.jobs.register(FORGET_JOB, forgetting.forget, { maxAttempts: 20 })
  return { verification, identityRequirement, veriffWebhook }
}

export function buildVerificationReview(d: {
  db: Db
  verification: VerificationService
  audit: AdminAudit
  emails: (ids: string[]) => Promise<Map<string, string>>
}) {
  return { verificationReview: new VerificationReview(d) }
}

export async function verificationHttp(
  app: FastifyInstance,
  s: ReturnType<typeof buildVerification> &
    ReturnType<typeof buildVerificationReview> & { admin: { access: AdminAccess }; config: Config },
) {
  // The image travels as base64 (4 bytes per 3) inside a small JSON object.
  const mediaBodyLimit = Math.ceil(s.config.verification.mediaMaxBytes / 3) * 4 + 64 * 1024
  await app.register(verificationRoutes, { verification: s.verification, mediaBodyLimit })
  await app.register(veriffWebhookRoutes, { webhook: s.veriffWebhook })
  await app.register(verificationAdminRoutes, { access: s.admin.access, review: s.verificationReview })
}
