// Object storage behind one interface, with two real implementations: local disk (embedded mode,
// the service serves the objects itself) and any S3-compatible store (production).
import type { Readable } from 'node:stream'

export interface StoredObject {
  body: Readable
  size: number
}

export interface BlobStore {
  readonly driver: 'disk' | 's3'
  /** bucket name reported in file records (`local` for the disk store) */
  readonly bucket: string
  /**
   * Streams `body` into the object `key`. The object becomes visible only once the whole stream
   * has been written; when the stream (or the store) fails, nothing is left behind and the
   * promise rejects with the stream's error.
   */
  put(key: string, body: Readable, opts: { contentType: string }): Promise<{ size: number }>
  /** The object, or undefined when it does not exist. */
  get(key: string): Promise<StoredObject | undefined>
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>
  /** The unsigned address of the object (enough for public objects). */
  url(key: string): string
  /** An address that grants a GET of the object for `ttlSeconds` from now. */
  signedUrl(key: string, ttlSeconds: number): Promise<string>
}

/** Object keys the stores accept: slash-separated segments of safe characters, no dot segments. */
export function assertSafeKey(key: string): void {
  const ok =
    key.length > 0 &&
    key.length <= 512 &&
    key.split('/').every((seg) => /^[A-Za-z0-9._-]+$/.test(seg) && seg !== '.' && seg !== '..')
  if (!ok) throw new Error(`unsafe object key: ${JSON.stringify(key)}`)
}
