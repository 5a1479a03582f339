// The rules of file storage: streamed uploads with a size limit and content-detected types,
// visibility (someone else's private file does not exist for the caller), signed URLs, deletion,
// and the summaries other modules embed.
import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { RawBuilder } from 'kysely'
import type { Logger } from 'pino'
import type { Db, Executor } from '../../db/index.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { isId, newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { BlobStore, StoredObject } from '../../platform/storage/index.ts'
import { DiskBlobStore } from '../../platform/storage/index.ts'
import { ALLOWED_TYPES, type Detected, detectType, SNIFF_BYTES, sanitizeOriginalName } from './content.ts'
import { type FileRow, type FileSummarySource, filesRepo, summarySourcesJson } from './repo.ts'

export type Visibility = 'public' | 'private'

/** Pre-signed URL validity (SPEC Limits). */
export const SIGNED_URL_TTL_SECONDS = 300

export const DELETE_OBJECT_JOB = 'files.delete-object'

/** One part of a multipart body: a plain field, or a file with its byte stream. */
export interface UploadPart {
  field: string
  file?: { stream: Readable; filename: string | undefined }
}

export interface FileRecordData {
  _id: string
  name: string
  uploaded_by: string
  type: string
  size: string
  bucket: string
  url: string
  meta: { originalName: string }
  status: boolean
  deletedAt: Date | null
  createdAt: Date
  updatedAt: Date
  __v: number
}

export interface FileSummaryData {
  _id: string
  name: string
  type: string
  size: string
  url: string
}

export interface FileListData {
  count: number
  pages: number
  page: number
  limit: number
  data: FileRecordData[]
}

export interface Download extends StoredObject {
  type: string
  visibility: Visibility
}

interface StoredUpload {
  key: string
  size: number
  detected: Detected
  originalName: string
}

const typeNotAllowed = () =>
  new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `This type of file is not accepted; allowed: ${ALLOWED_TYPES.map((t) => t.mime).join(', ')}`,
  )

const interrupted = () => errors.validation('The upload was interrupted or the multipart body is malformed')

export class FileService {
  readonly store: BlobStore
  readonly maxBytes: number
  readonly #db: Db
  readonly #clock: Clock
  readonly #jobs: JobQueue
  readonly #log: Logger

  constructor(deps: {
    db: Db
    store: BlobStore
    clock: Clock
    jobs: JobQueue
    log: Logger
    maxBytes: number
  }) {
    this.#db = deps.db
    this.store = deps.store
    this.#clock = deps.clock
    this.#jobs = deps.jobs
    this.#log = deps.log
    this.maxBytes = deps.maxBytes
  }

  toRecord(row: FileRow): FileRecordData {
    return {
      _id: row.id,
      name: row.name,
      uploaded_by: row.uploadedBy,
      type: row.type,
      size: String(row.size),
      bucket: row.bucket,
      url: this.store.url(row.name),
      meta: { originalName: String(row.meta?.originalName ?? '') },
      status: row.status,
      deletedAt: row.deletedAt,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      __v: row.version,
    }
  }

  toSummary(row: FileSummarySource): FileSummaryData {
    return {
      _id: row.id,
      name: row.name,
      type: row.type,
      size: String(row.size),
      url: this.store.url(row.name),
    }
  }

  /**
   * Stores the one file of a multipart body (field `file`) and records it. The bytes stream
   * straight to the store; an oversize, refused or malformed upload leaves nothing behind.
   */
  async upload(
    userId: string,
    visibility: Visibility,
    parts: AsyncIterable<UploadPart>,
  ): Promise<FileRecordData> {
    let stored: StoredUpload | undefined
    try {
      for await (const part of parts) {
        if (!part.file) continue
        if (part.field !== 'file' || stored) {
          part.file.stream.destroy()
          throw errors.field('/file', 'Send exactly one file, in the field "file"')
        }
        stored = await this.#storeFile(userId, visibility, part.file)
      }
      if (!stored) throw errors.field('/file', 'A file is required in the field "file"')
      const now = this.#clock.now()
      const row = await filesRepo.insert(this.#db, {
        id: newId(now.getTime()),
        name: stored.key,
        uploadedBy: userId,
        visibility,
        type: stored.detected.mime,
        size: stored.size,
        bucket: this.store.bucket,
        meta: { originalName: stored.originalName },
        createdAt: now,
        updatedAt: now,
      })
      return this.toRecord(row)
    } catch (err) {
      if (stored) await this.#discard(stored.key)
      throw err
    }
  }

  async #storeFile(
    userId: string,
    visibility: Visibility,
    file: NonNullable<UploadPart['file']>,
  ): Promise<StoredUpload> {
    const originalName = sanitizeOriginalName(file.filename)
    const source = file.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>
    let finished = false
    const next = async (): Promise<IteratorResult<Buffer>> => {
      try {
        const r = await source.next()
        if (r.done) finished = true
        return r
      } catch (err) {
        finished = true
        throw err instanceof AppError ? err : interrupted()
      }
    }
    try {
      // Read just enough to recognise the type, then stream the rest.
      const headChunks: Buffer[] = []
      let headLength = 0
      while (headLength < SNIFF_BYTES) {
        const r = await next()
        if (r.done) break
        headChunks.push(r.value)
        headLength += r.value.length
      }
      const head = Buffer.concat(headChunks, headLength)
      if (head.length === 0) throw errors.field('/file', 'The file is empty')
      const detected = await detectType(head, finished, originalName)
      if (!detected) throw typeNotAllowed()

      const max = this.maxBytes
      let size = 0
      const check = (chunk: Buffer) => {
        size += chunk.length
        if (size > max) throw errors.payloadTooLarge(max)
        // Text was recognised from its start only; a NUL byte later means it is not text.
        if (detected.text && chunk.includes(0)) throw typeNotAllowed()
        return chunk
      }
      async function* body() {
        yield check(head)
        for (;;) {
          const r = await next()
          if (r.done) return
          yield check(r.value)
        }
      }
      const key = `${visibility}/${userId}/${randomUUID()}.${detected.ext}`
      const result = await this.store.put(key, Readable.from(body(), { objectMode: false }), {
        contentType: detected.mime,
      })
      return { key, size: result.size, detected, originalName }
    } finally {
      // Stops the multipart stream when it was not read to its end (refused or failed upload).
      if (!finished) await source.return?.().catch(() => {})
    }
  }

  async #discard(key: string) {
    try {
      await this.store.delete(key)
    } catch (err) {
      this.#log.warn({ err, key }, 'could not remove a discarded upload')
    }
  }

  /** The caller's live files, newest first. */
  async list(
    userId: string,
    q: { page?: number; limit?: number; type?: string; visibility?: Visibility },
  ): Promise<FileListData> {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { rows, count } = await filesRepo.list(this.#db, {
      uploadedBy: userId,
      page,
      limit,
      ...(q.type ? { type: q.type.toLowerCase() } : {}),
      ...(q.visibility ? { visibility: q.visibility } : {}),
    })
    return { count, pages: Math.ceil(count / limit), page, limit, data: rows.map((r) => this.toRecord(r)) }
  }

  /** A file the caller may see: their own, or anyone's public file. */
  async get(userId: string, id: string): Promise<FileRecordData> {
    const row = await filesRepo.findLive(this.#db, id)
    if (!row || (row.uploadedBy !== userId && row.visibility !== 'public')) throw errors.notFound('File')
    return this.toRecord(row)
  }

  /** A pre-signed GET URL of one of the caller's own files, valid 300 seconds. */
  async signedUrl(userId: string, id: string): Promise<string> {
    const row = await filesRepo.findLive(this.#db, id)
    if (!row || row.uploadedBy !== userId) throw errors.notFound('File')
    return this.store.signedUrl(row.name, SIGNED_URL_TTL_SECONDS)
  }

  /** Soft-deletes one of the caller's files and removes its object. */
  async remove(userId: string, id: string): Promise<FileRecordData> {
    const existing = await filesRepo.findLive(this.#db, id)
    if (!existing || (existing.uploadedBy !== userId && existing.visibility !== 'public'))
      throw errors.notFound('File')
    if (existing.uploadedBy !== userId) throw errors.forbidden('Only the uploader may delete a file')
    const row = await this.#db.transaction().execute(async (tx) => {
      const deleted = await filesRepo.markDeleted(tx, id, userId, this.#clock.now())
      if (!deleted) return undefined
      // The object is removed right away below; the job makes sure of it if that fails.
      await this.#jobs.enqueue(
        tx,
        DELETE_OBJECT_JOB,
        { key: deleted.name },
        { dedupeKey: `files.delete:${id}` },
      )
      return deleted
    })
    if (!row) throw errors.notFound('File')
    await this.store.delete(row.name).catch((err) => {
      this.#log.warn({ err, key: row.name }, 'object removal deferred to the job')
    })
    return this.toRecord(row)
  }

  /** Job handler: removes the object of a deleted file (idempotent). */
  async deleteObject(payload: { key: string }) {
    await this.store.delete(payload.key)
  }

  /**
   * Serves an object of the disk store: a public object as is, a private one only with a valid,
   * unexpired signature (403 otherwise); a deleted or unknown object is 404.
   */
  async openDiskObject(
    visibility: Visibility,
    key: string,
    query: { expires?: string; signature?: string; kid?: string },
  ): Promise<Download> {
    if (!(this.store instanceof DiskBlobStore)) throw errors.notFound('File')
    if (visibility === 'private') {
      const check = this.store.verify(key, query.expires, query.signature, query.kid)
      if (check === 'expired') throw errors.forbidden('This link has expired')
      if (check === 'unknown-key')
        throw errors.named(
          'SIGNING_KEY_UNKNOWN',
          'This link was signed with a key that is no longer accepted; ask for a new one',
        )
      if (check !== 'valid') throw errors.forbidden('A valid signature is required for this file')
    }
    const row = await filesRepo.findLiveByName(this.#db, key)
    if (!row) throw errors.notFound('File')
    const obj = await this.store.get(key)
    if (!obj) throw errors.notFound('File')
    return { ...obj, type: row.type, visibility: row.visibility }
  }

  /**
   * The summaries of the live files whose ids `ids` (a text[] expression of the caller's query)
   * holds, as SQL to embed in that query; `summariesFrom` turns what it answers into summaries.
   */
  summariesSql(ids: RawBuilder<unknown>): RawBuilder<FileSummarySource[]> {
    return summarySourcesJson(ids)
  }

  /** The summaries, by id, of what `summariesSql` answered. */
  summariesFrom(sources: readonly FileSummarySource[] | null): Map<string, FileSummaryData> {
    return new Map((sources ?? []).map((r) => [r.id, this.toSummary(r)]))
  }

  /** Summaries `{ _id, name, type, size, url }` of the live files among `ids`, by id. */
  async summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, FileSummaryData>> {
    const wanted = [...new Set(ids.filter(isId))]
    const rows = await filesRepo.findLiveMany(ex, wanted)
    return new Map(rows.map((r) => [r.id, this.toSummary(r)]))
  }

  /**
   * Checks that every id is a live file uploaded by `userId` (and, when asked, of the given
   * visibility); answers 400 VALIDATION_ERROR at `path` otherwise. Returns their summaries.
   */
  async assertOwned(
    ex: Executor,
    userId: string,
    ids: readonly string[],
    opts: { path?: string; visibility?: Visibility } = {},
  ): Promise<Map<string, FileSummaryData>> {
    const path = opts.path ?? '/file'
    const bad = () => errors.field(path, 'Unknown file, or not one of your files')
    if (ids.some((id) => !isId(id))) throw bad()
    const wanted = [...new Set(ids)]
    const rows = await filesRepo.findLiveMany(ex, wanted)
    const ok = rows.filter(
      (r) => r.uploadedBy === userId && (!opts.visibility || r.visibility === opts.visibility),
    )
    if (ok.length !== wanted.length) {
      throw opts.visibility && rows.length === wanted.length && rows.every((r) => r.uploadedBy === userId)
        ? errors.field(path, `The file must be ${opts.visibility}`)
        : bad()
    }
    return new Map(ok.map((r) => [r.id, this.toSummary(r)]))
  }
}
