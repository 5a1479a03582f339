// The embedded object store: files under DATA_DIR/files, written to a temporary file first and
// renamed into place when complete, served by the service itself at /v1/files/<key> (private
// objects only with an HMAC-signed, expiring URL).
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { Clock } from '../clock.ts'
import type { SecretRotation } from '../crypto/secret-ring.ts'
import { assertSafeKey, type BlobStore, type StoredObject } from './blob-store.ts'
import { type SignatureCheck, UrlSigner } from './url-signer.ts'

/** The path under which the service serves disk objects. */
export const DISK_ROUTE_PREFIX = '/v1/files/'

export interface DiskStoreOptions {
  /** directory holding the objects */
  root: string
  /** base of the URLs handed out (config.publicUrl) */
  publicUrl: string
  /** root secret the URL-signing key is derived from (URL_SIGNING_SECRET, with the one it replaced) */
  secret: string | SecretRotation
  clock: Clock
}

export class DiskBlobStore implements BlobStore {
  readonly driver = 'disk' as const
  readonly bucket = 'local'
  readonly #root: string
  readonly #tmp: string
  readonly #publicUrl: string
  readonly #signer: UrlSigner

  constructor(opts: DiskStoreOptions) {
    this.#root = opts.root
    this.#tmp = join(opts.root, '.tmp')
    this.#publicUrl = opts.publicUrl.replace(/\/+$/, '')
    this.#signer = new UrlSigner(opts.secret, opts.clock)
  }

  #path(key: string): string {
    assertSafeKey(key)
    return join(this.#root, ...key.split('/'))
  }

  async put(key: string, body: Readable, _opts: { contentType: string }): Promise<{ size: number }> {
    const target = this.#path(key)
    await mkdir(this.#tmp, { recursive: true })
    const tmp = join(this.#tmp, randomUUID())
    const out = createWriteStream(tmp, { flags: 'wx', mode: 0o600 })
    try {
      await pipeline(body, out)
      const { size } = await stat(tmp)
      await mkdir(dirname(target), { recursive: true })
      await rename(tmp, target)
      return { size }
    } catch (err) {
      // The file is opened asynchronously: a body that fails at once (over the size limit) can
      // reject the pipeline before the file exists. Removed only once the stream is closed, so it
      // cannot appear after the removal.
      if (!out.closed) await once(out, 'close').catch(() => {})
      await rm(tmp, { force: true })
      throw err
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const path = this.#path(key)
    try {
      const s = await stat(path)
      if (!s.isFile()) return undefined
      return { body: createReadStream(path), size: s.size }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw err
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true })
  }

  url(key: string): string {
    assertSafeKey(key)
    return `${this.#publicUrl}${DISK_ROUTE_PREFIX}${key}`
  }

  async signedUrl(key: string, ttlSeconds: number): Promise<string> {
    const { expires, signature, kid } = this.#signer.sign(key, ttlSeconds)
    return `${this.url(key)}?expires=${expires}&signature=${signature}&kid=${kid}`
  }

  /** Checks the `expires`, `signature` and `kid` query parameters of a signed URL for `key`. */
  verify(key: string, expires: unknown, signature: unknown, kid: unknown): SignatureCheck {
    return this.#signer.verify(key, expires, signature, kid)
  }
}
