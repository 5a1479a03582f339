// Any S3-compatible object store. Uploads stream through in parts (S3 multipart upload) so memory
// stays bounded by the part size whatever the file size; small objects go up in one PUT. Signed
// GET URLs are standard SigV4 query-string signatures.
import type { Readable } from 'node:stream'
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Clock } from '../clock.ts'
import { assertSafeKey, type BlobStore, type StoredObject } from './blob-store.ts'

export interface S3StoreOptions {
  endpoint: string | undefined
  bucket: string
  region: string
  accessKeyId: string | undefined
  secretAccessKey: string | undefined
  forcePathStyle: boolean
  clock: Clock
  /** bytes per multipart part (S3's minimum is 5 MiB) */
  partSize?: number
}

export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const
  readonly bucket: string
  readonly client: S3Client
  readonly #opts: S3StoreOptions
  readonly #partSize: number

  constructor(opts: S3StoreOptions) {
    this.#opts = opts
    this.bucket = opts.bucket
    this.#partSize = Math.max(opts.partSize ?? 8 * 1024 * 1024, 5 * 1024 * 1024)
    this.client = new S3Client({
      region: opts.region,
      forcePathStyle: opts.forcePathStyle,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.accessKeyId && opts.secretAccessKey
        ? { credentials: { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey } }
        : {}),
      // Checksums only where S3 demands them: several S3-compatible stores reject the newer
      // default checksum headers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  async put(key: string, body: Readable, opts: { contentType: string }): Promise<{ size: number }> {
    assertSafeKey(key)
    const Bucket = this.bucket
    let chunks: Buffer[] = []
    let buffered = 0
    let size = 0
    let uploadId: string | undefined
    const parts: { ETag: string; PartNumber: number }[] = []
    const flushPart = async () => {
      const Body = Buffer.concat(chunks, buffered)
      chunks = []
      buffered = 0
      const PartNumber = parts.length + 1
      const res = await this.client.send(
        new UploadPartCommand({ Bucket, Key: key, UploadId: uploadId, PartNumber, Body }),
      )
      parts.push({ ETag: res.ETag!, PartNumber })
    }
    try {
      for await (const chunk of body) {
        const buf = chunk as Buffer
        chunks.push(buf)
        buffered += buf.length
        size += buf.length
        if (buffered >= this.#partSize) {
          uploadId ??= (
            await this.client.send(
              new CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: opts.contentType }),
            )
          ).UploadId
          await flushPart()
        }
      }
      if (uploadId === undefined) {
        const Body = Buffer.concat(chunks, buffered)
        chunks = []
        await this.client.send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body,
            ContentLength: Body.length,
            ContentType: opts.contentType,
          }),
        )
      } else {
        if (buffered > 0) await flushPart()
        await this.client.send(
          new CompleteMultipartUploadCommand({
            Bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts },
          }),
        )
      }
      return { size }
    } catch (err) {
      if (uploadId !== undefined) {
        await this.client
          .send(new AbortMultipartUploadCommand({ Bucket, Key: key, UploadId: uploadId }))
          .catch(() => {})
      }
      throw err
    }
  }

  async get(key: string): Promise<StoredObject | undefined> {
    assertSafeKey(key)
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }))
      return { body: res.Body as Readable, size: Number(res.ContentLength ?? 0) }
    } catch (err) {
      if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return undefined
      throw err
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key)
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }))
  }

  url(key: string): string {
    assertSafeKey(key)
    const { endpoint, region, forcePathStyle } = this.#opts
    const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`)
    const path = base.pathname.replace(/\/+$/, '')
    if (forcePathStyle) return `${base.protocol}//${base.host}${path}/${this.bucket}/${key}`
    return `${base.protocol}//${this.bucket}.${base.host}${path}/${key}`
  }

  signedUrl(key: string, ttlSeconds: number): Promise<string> {
    assertSafeKey(key)
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: ttlSeconds,
      signingDate: this.#opts.clock.now(),
    })
  }

  destroy() {
    this.client.destroy()
  }
}
