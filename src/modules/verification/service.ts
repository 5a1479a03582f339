// Identity verification for the user: a session with the configured provider, the images sent for
// it (kept as private files of the files module), the account's attempts, deletion of a session in
// progress, and the decisions (an operator's or Veriff's) that set the profile's `kyc` and
// `kycStatus` and notify the user. Provider calls and file storage happen outside transactions;
// each change of the database is one transaction.
import { Readable } from 'node:stream'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { VerificationStatus } from '../../db/tables/verification.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { EventService } from '../events/types.ts'
import type { FileService, UploadPart } from '../files/types.ts'
import { decodeImage, requiredContexts } from './media.ts'
import type { IdentityProvider, SessionPerson } from './provider.ts'
import { type MediaRow, OPEN_STATUSES, type VerificationRow, verificationRepo } from './repo.ts'
import { toVerification, type VerificationView } from './views.ts'

export type MediaContext = 'face' | 'document-front' | 'document-back'

export interface VerificationDeps {
  db: Db
  clock: Clock
  log: Logger
  provider: IdentityProvider
  files: Pick<FileService, 'upload' | 'signedUrl' | 'remove' | 'maxBytes'>
  accounts: { setKyc(tx: Tx, userId: string, kyc: { kyc: boolean; kycStatus: string | null }): Promise<void> }
  events: Pick<EventService, 'emit'>
  mediaMaxBytes: number
  maxAttempts: number
}

export interface Decision {
  status: Exclude<VerificationStatus, 'created' | 'submitted'>
  reason: string
  reasonCode?: number | null
  /** the operator's account id, or `veriff` */
  decidedBy: string
  /** the provider's decision as received */
  decision?: Record<string, unknown>
  documentValidFrom?: string | null
  documentValidUntil?: string | null
}

const FINAL: readonly VerificationStatus[] = [
  'approved',
  'declined',
  'resubmission_requested',
  'expired',
  'abandoned',
]

const named = (code: ConstructorParameters<typeof AppError>[0], message: string) =>
  new AppError(code, message)
export const notOpen = () =>
  named('VERIFICATION_NOT_OPEN', 'This verification session no longer takes images or changes')

function checkBirthDate(value: string, now: Date) {
  const d = new Date(`${value}T00:00:00Z`)
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value)
    throw errors.field('/dateOfBirth', 'must be a real date (YYYY-MM-DD)')
  if (d >= now || d.getUTCFullYear() < 1900) throw errors.field('/dateOfBirth', 'must be a date in the past')
}

export class VerificationService {
  constructor(readonly deps: VerificationDeps) {}

  get provider() {
    return this.deps.provider
  }

  /** Starts a session with the provider (SDK createSession). */
  async createSession(userId: string, person: SessionPerson) {
    const { db, clock, provider } = this.deps
    checkBirthDate(person.dateOfBirth, clock.now())
    if (await verificationRepo.isVerified(db, userId))
      throw named('VERIFICATION_IN_PROGRESS', 'Your identity is verified already')
    if (await verificationRepo.open(db, userId))
      throw named(
        'VERIFICATION_IN_PROGRESS',
        'You have a verification session in progress; send its images or delete it first',
      )
    if ((await verificationRepo.countOfUser(db, userId)) >= this.deps.maxAttempts)
      throw named(
        'VERIFICATION_ATTEMPTS_EXHAUSTED',
        `You have started the most verification sessions allowed (${this.deps.maxAttempts}); contact support`,
      )
    const now = clock.now()
    const id = newId(now.getTime())
    // The provider's session first (a network call), then the row that records it.
    const started = await provider.start(id, person)
    const row = await db.transaction().execute(async (tx) => {
      if (await verificationRepo.open(tx, userId))
        throw named('VERIFICATION_IN_PROGRESS', 'You have a verification session in progress')
      const inserted = await verificationRepo.insert(tx, {
        id,
        userId,
        provider: provider.name,
        status: 'created',
        providerSessionId: started.id,
        sessionToken: started.sessionToken,
        sessionUrl: started.url,
        ...person,
        createdAt: now,
        updatedAt: now,
      })
      await this.deps.accounts.setKyc(tx, userId, { kyc: false, kycStatus: 'pending' })
      return inserted
    })
    return {
      status: 'success' as const,
      verification: {
        id: row.providerSessionId,
        url: row.sessionUrl,
        vendorData: row.id,
        host: started.host,
        status: row.status,
        sessionToken: row.sessionToken,
      },
    }
  }

  /**
   * One image of the caller's session in progress (SDK sendSessionMedia). Once every image the
   * document needs is in (face, front, and back unless a passport), the session is submitted.
   */
  async sendMedia(
    userId: string,
    input: { context: MediaContext; file: { content: string; name?: string } },
  ) {
    const { db, clock, files, provider } = this.deps
    const session = await verificationRepo.open(db, userId)
    if (!session) throw errors.notFound('Verification session')
    if (session.status !== 'created') throw notOpen()
    const image = decodeImage(input.file.content, Math.min(this.deps.mediaMaxBytes, files.maxBytes))
    const name = (input.file.name ?? '').trim() || `${input.context}.${image.ext}`
    const part: UploadPart = { field: 'file', file: { stream: Readable.from([image.bytes]), filename: name } }
    const file = await files.upload(
      userId,
      'private',
      (async function* () {
        yield part
      })(),
    )
    const discard = () =>
      files.remove(userId, file._id).catch((err) => this.deps.log.warn({ err }, 'could not remove an image'))
    try {
      // Whether this image completes the set, as far as can be told before the transaction: the
      // provider is told to decide (a network call) before the change is written.
      const required = requiredContexts(session.documentType)
      const had = new Set((await verificationRepo.media(db, [session.id])).map((m) => m.context))
      had.add(input.context)
      const completeBefore = required.every((c) => had.has(c as MediaContext))
      await provider.sendMedia(session.providerSessionId, {
        context: input.context,
        mime: image.mime,
        bytes: image.bytes,
      })
      if (completeBefore) await provider.submit(session.providerSessionId)
      const status = await db.transaction().execute(async (tx) => {
        const row = await verificationRepo.lock(tx, session.id)
        if (row?.status !== 'created' || row.deletedAt) throw notOpen()
        const now = clock.now()
        await verificationRepo.insertMedia(tx, {
          id: newId(now.getTime()),
          verificationId: row.id,
          context: input.context,
          fileId: file._id,
          name,
          mimeType: image.mime,
          size: image.bytes.length,
          createdAt: now,
        })
        // Counted again under the session's lock: two images sent at once both see the full set.
        const have = new Set((await verificationRepo.media(tx, [row.id])).map((m) => m.context))
        if (!required.every((c) => have.has(c as MediaContext))) return row.status
        await verificationRepo.update(tx, row.id, { status: 'submitted', updatedAt: now })
        return 'submitted' as const
      })
      // The other image of a simultaneous pair completed the set first: the provider still has to
      // be told (after the commit; a failure is logged, the session stays submitted here).
      if (status === 'submitted' && !completeBefore)
        await provider
          .submit(session.providerSessionId)
          .catch((err) =>
            this.deps.log.warn({ err, verificationId: session.id }, 'provider submission failed'),
          )
      return {
        status,
        image: {
          context: input.context,
          id: file._id,
          name: file.name,
          timestamp: null,
          size: image.bytes.length,
          mimetype: image.mime,
          url: await files.signedUrl(userId, file._id),
        },
      }
    } catch (err) {
      await discard()
      throw err
    }
  }

  /** Every session the caller started, newest first, with how many more they may start. */
  async attempts(userId: string) {
    const rows = await verificationRepo.ofUser(this.deps.db, userId, true)
    return {
      status: 'success' as const,
      verifications: await this.#views(userId, rows),
      attemptsLeft: Math.max(0, this.deps.maxAttempts - rows.length),
    }
  }

  /** The caller's verifications that are not deleted, newest first. */
  async list(userId: string): Promise<VerificationView[]> {
    return this.#views(userId, await verificationRepo.ofUser(this.deps.db, userId, false))
  }

  /** Deletes the caller's session in progress (before any decision) and its images. */
  async deleteSession(userId: string): Promise<VerificationView> {
    const { db, clock, files } = this.deps
    const session = await verificationRepo.open(db, userId)
    if (!session) throw errors.notFound('Verification session')
    // Veriff decides a submitted session on its own: only one still taking images can go.
    if (session.status === 'review' || (session.provider === 'veriff' && session.status !== 'created'))
      throw notOpen()
    const row = await db.transaction().execute(async (tx) => {
      const locked = await verificationRepo.lock(tx, session.id)
      if (!locked || !OPEN_STATUSES.includes(locked.status) || locked.deletedAt) throw notOpen()
      const now = clock.now()
      const updated = await verificationRepo.update(tx, locked.id, {
        status: 'abandoned',
        deletedAt: now,
        updatedAt: now,
      })
      const latest = await verificationRepo.latest(tx, userId)
      await this.deps.accounts.setKyc(tx, userId, { kyc: false, kycStatus: latest?.status ?? null })
      return updated
    })
    const media = await verificationRepo.media(db, [row.id])
    for (const m of media)
      await files
        .remove(userId, m.fileId)
        .catch((err) => this.deps.log.warn({ err }, 'could not remove an image'))
    return toVerification(row, media, undefined)
  }

  /**
   * Records a decision on a session in one transaction with the profile's kyc fields, the user's
   * notification and whatever `then` writes (the operator's audit row). `from`: the states the
   * decision may be taken in. A repeated decision that is already recorded changes nothing
   * (`changed: false`) when `repeatable` (a provider's webhook sent again).
   */
  async decide(
    id: string,
    d: Decision,
    opts: { from: readonly VerificationStatus[]; repeatable: boolean; actorId: string | null },
    then?: (tx: Tx, row: VerificationRow) => Promise<void>,
  ): Promise<{ row: VerificationRow; changed: boolean }> {
    const { db, clock, accounts, events } = this.deps
    return db.transaction().execute(async (tx) => {
      const row = await verificationRepo.lock(tx, id)
      if (!row) throw errors.notFound('Verification')
      if (FINAL.includes(row.status) || row.deletedAt) {
        if (opts.repeatable && row.status === d.status) return { row, changed: false }
        throw named('VERIFICATION_NOT_OPEN', `This verification was ${row.status} already`)
      }
      // An operator never decides their own identity.
      if (opts.actorId !== null && opts.actorId === row.userId)
        throw named('OWN_ACCOUNT_REFUSED', 'An operator cannot decide their own identity verification')
      if (!opts.from.includes(row.status))
        throw named(
          'VERIFICATION_NOT_SUBMITTED',
          'Only a submitted verification (every image in) can be decided',
        )
      const now = clock.now()
      const updated = await verificationRepo.update(tx, id, {
        status: d.status,
        reason: d.reason,
        reasonCode: d.reasonCode ?? null,
        decidedBy: d.decidedBy,
        decidedAt: now,
        decision: d.decision ? JSON.stringify(d.decision) : null,
        documentValidFrom: d.documentValidFrom ?? null,
        documentValidUntil: d.documentValidUntil ?? null,
        updatedAt: now,
      })
      const final = FINAL.includes(d.status)
      await accounts.setKyc(tx, row.userId, {
        kyc: d.status === 'approved',
        kycStatus: final ? d.status : 'pending',
      })
      if (final)
        await events.emit(tx, {
          type: 'identity.decided',
          actorId: opts.actorId,
          audience: [row.userId],
          data: { verificationId: id, status: d.status, reason: d.status === 'approved' ? '' : d.reason },
          key: `identity.decided:${id}`,
        })
      await then?.(tx, updated)
      return { row: updated, changed: true }
    })
  }

  /** Whether the account's identity is verified (an approved verification). */
  isVerified(userId: string): Promise<boolean> {
    return verificationRepo.isVerified(this.deps.db, userId)
  }

  /** The state of the account's newest verification, or null. */
  async kycStatus(userId: string): Promise<string | null> {
    return (await verificationRepo.latest(this.deps.db, userId))?.status ?? null
  }

  /** Media rows of sessions, by session id. */
  async mediaOf(ids: readonly string[]): Promise<Map<string, MediaRow[]>> {
    const out = new Map<string, MediaRow[]>()
    for (const m of await verificationRepo.media(this.deps.db, ids))
      out.set(m.verificationId, [...(out.get(m.verificationId) ?? []), m])
    return out
  }

  /** A signed URL (300 s) of an image of `ownerId`'s, or undefined when the file is gone. */
  signedUrl(ownerId: string, fileId: string): Promise<string | undefined> {
    return this.deps.files.signedUrl(ownerId, fileId).catch(() => undefined)
  }

  async #views(userId: string, rows: VerificationRow[]): Promise<VerificationView[]> {
    const media = await this.mediaOf(rows.map((r) => r.id))
    const out: VerificationView[] = []
    for (const row of rows) {
      const images = media.get(row.id) ?? []
      const last = images.at(-1)
      const url = last && !row.deletedAt ? await this.signedUrl(userId, last.fileId) : undefined
      out.push(toVerification(row, images, url))
    }
    return out
  }
}
