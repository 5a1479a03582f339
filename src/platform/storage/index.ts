// Picks the object store from configuration: S3 when S3_BUCKET is set, local disk otherwise (in
// FILES_DIR, or DATA_DIR/files on the embedded defaults). The S3 client is loaded only with S3.
import { join } from 'node:path'
import { type Config, notInProduction } from '../../config.ts'
import { urlSigningRotation } from '../../config-secrets.ts'
import type { Clock } from '../clock.ts'
import type { BlobStore } from './blob-store.ts'
import { DiskBlobStore } from './disk.ts'

export type { BlobStore, StoredObject } from './blob-store.ts'
export { DISK_ROUTE_PREFIX, DiskBlobStore } from './disk.ts'
export type { S3BlobStore } from './s3.ts'

export async function createBlobStore(config: Config, clock: Clock): Promise<BlobStore> {
  if (config.s3) {
    const { S3BlobStore } = await import('./s3.ts')
    return new S3BlobStore({ ...config.s3, clock })
  }
  if (config.production && !config.filesDir)
    notInProduction('the object store under DATA_DIR (set the S3 variables or FILES_DIR)')
  return new DiskBlobStore({
    root: config.filesDir ?? join(config.dataDir, 'files'),
    publicUrl: config.publicUrl,
    secret: urlSigningRotation(config),
    clock,
  })
}
