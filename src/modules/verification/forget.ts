// A deleted account's identity verifications (#46): in the deletion's own transaction, the
// personal data of every session is blanked (names, birth date, address, document number, the
// provider's decision); the images are then removed from the private file store by a job (the
// store is outside the database), each image at most once however often the job runs.
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { DomainEvent } from '../events/types.ts'
import type { FileService } from '../files/types.ts'
import { verificationRepo } from './repo.ts'

export const FORGET_JOB = 'verification.forget'

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'verification.forget': { userId: string }
  }
}

export function forgetDeletedAccounts(d: {
  db: Db
  clock: Clock
  log: Logger
  jobs: JobQueue
  files: Pick<FileService, 'remove'>
}) {
  /** The events subscriber: erases in the deletion's transaction and queues the images' removal. */
  const onEvent = async (tx: Tx, event: DomainEvent) => {
    if (event.type !== 'account.deleted') return
    const { userId } = event.data
    await verificationRepo.erasePersonalData(tx, userId, d.clock.now())
    await d.jobs.enqueue(tx, FORGET_JOB, { userId }, { dedupeKey: `${FORGET_JOB}:${userId}` })
  }

  /** The job: removes each image's file, then its record. */
  const forget = async ({ userId }: { userId: string }) => {
    for (const m of await verificationRepo.mediaOfUser(d.db, userId)) {
      await d.files.remove(userId, m.fileId).catch((err: unknown) => {
        // already gone (a job that ran before) is what this wants
        if ((err as { code?: string }).code !== 'NOT_FOUND') throw err
      })
      await verificationRepo.deleteMedia(d.db, m.id)
    }
    d.log.info({ userId }, 'identity verification images of a deleted account removed')
  }

  return { onEvent, forget }
}
