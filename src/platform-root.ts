// The platform parts under every module of the composition root (src/root.ts): configuration,
// database, clock, log, the job queue, mail and the secret box.
import type { Logger } from 'pino'
import { type Config, notInProduction } from './config.ts'
import type { Database } from './db/index.ts'
import type { CrashHook } from './modules/settlement/outgoing/types.ts'
import type { Clock } from './platform/clock.ts'
import { createSecretBox } from './platform/crypto/secrets.ts'
import { registerPrune, schedulePrune } from './platform/jobs/prune.ts'
import { JobQueue } from './platform/jobs/queue.ts'
import { createOutboxMailer, createSmtpMailer, type Mailer } from './platform/mail/mailer.ts'

export interface RootDeps {
  config: Config
  database: Database
  clock: Clock
  log: Logger
  /** default: SMTP when SMTP_URL is set, else the outbox (not in production) */
  mailer?: Mailer
  /** tests only: the outgoing sender's crash points (see `CrashHook`) */
  crashHook?: CrashHook
}

/** The platform parts every module may take: configuration, database, clock, log, jobs, mail, secrets. */
export async function buildPlatform(deps: RootDeps) {
  const { config, database, clock, log } = deps
  const db = database.db
  const jobs = new JobQueue(db, log, clock)
  const mailer =
    deps.mailer ??
    (config.smtpUrl
      ? await createSmtpMailer(config.smtpUrl, config.mailFrom)
      : config.production
        ? notInProduction('the mail outbox (SMTP_URL is not set)')
        : createOutboxMailer(db, log, { printText: !config.production }))
  jobs.register('mail.send', (mail) => mailer.send(mail), { maxAttempts: 8, deleteOnSuccess: true })
  // Finished jobs are deleted a week after they finished (platform/jobs/prune.ts).
  registerPrune({ db, jobs, clock, log })
  await schedulePrune({ db, jobs, clock })
  const secrets = createSecretBox(
    { ...config.previousKeyEncryptionKeys, [config.keyEncryptionKeyId]: config.keyEncryptionKey },
    config.keyEncryptionKeyId,
  )
  return { config, database, db, clock, log, jobs, mailer, secrets }
}
