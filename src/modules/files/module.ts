// File storage (spec #31–#35): the object store, the file service other modules call for file
// summaries, the object-removal job, and the routes.
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { createBlobStore, type S3BlobStore } from '../../platform/storage/index.ts'
import { filesRoutes } from './routes.ts'
import { DELETE_OBJECT_JOB, FileService } from './service.ts'

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'files.delete-object': { key: string }
  }
}

export async function buildFiles(d: { db: Db; config: Config; clock: Clock; log: Logger; jobs: JobQueue }) {
  const store = await createBlobStore(d.config, d.clock)
  /** uploads, file records, and `summaries`/`assertOwned` for records that embed files */
  const files = new FileService({
    db: d.db,
    store,
    clock: d.clock,
    jobs: d.jobs,
    log: d.log,
    maxBytes: d.config.uploadMaxBytes,
  })
  d.jobs.register(DELETE_OBJECT_JOB, (payload) => files.deleteObject(payload), {
    maxAttempts: 10,
    deleteOnSuccess: true,
  })
  const close = async () => {
    if (store.driver === 's3') (store as S3BlobStore).destroy()
  }
  return { files, close }
}

export async function filesHttp(app: FastifyInstance, s: { files: FileService }) {
  await app.register(filesRoutes, { files: s.files })
}
