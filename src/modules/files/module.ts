// File storage (spec #31–#35): the object store, the file service other modules call for file
// summaries, the object-removal job, and the routes.
import { createBlobStore, S3BlobStore } from '../../platform/storage/index.ts'
import type { FeatureModule } from '../core.ts'
import { filesRoutes } from './routes.ts'
import { DELETE_OBJECT_JOB, FileService } from './service.ts'

declare module '../core.ts' {
  interface Services {
    /** uploads, file records, and `summaries`/`assertOwned` for records that embed files */
    files: FileService
  }
}

export const filesModule: FeatureModule = async ({ app, config, db, clock, log, services }) => {
  const store = createBlobStore(config, clock)
  const files = new FileService({
    db,
    store,
    clock,
    jobs: services.jobs,
    log,
    maxBytes: config.uploadMaxBytes,
  })
  services.files = files
  services.accounts.files = files
  services.jobs.register(DELETE_OBJECT_JOB, (payload) => files.deleteObject(payload), {
    maxAttempts: 10,
    deleteOnSuccess: true,
  })
  if (store instanceof S3BlobStore) app.addHook('onClose', async () => store.destroy())
  await app.register(filesRoutes, { files })
}
