// Notifications: each domain event becomes one notification per person it concerns (never its
// own actor), written in the event's transaction, pushed live on commit, and mailed in a digest:
// the first mail-worthy notification of a quiet period raises the user's latch and enqueues one
// `notifications.email` job a minute later, which sends everything still unsent in one mail.
import type { Write } from '../../db/compose.ts'
import { type Db, inTransaction, type Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { noticeMail } from '../../platform/mail/templates.ts'
import type { DomainEvent, EventWrites } from '../events/types.ts'
import { DEFAULT_EMAIL_TYPES, NOTIFICATION_TYPES, noticeOf, recipientsOf } from './catalog.ts'
import { type NotificationRow, notificationRepo } from './repo.ts'

export const DIGEST_JOB = 'notifications.email'
export interface DigestJob {
  userId: string
}

declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'notifications.email': DigestJob
  }
}

/** A live push in the caller's transaction (sent on commit), its statement making `writes` too. */
export type PublishLive = (
  tx: Tx,
  push: { userIds: string[]; type: string; data: unknown },
  writes?: readonly Write[],
) => Promise<void>

export interface NotificationDeps {
  db: Db
  clock: Clock
  jobs: JobQueue
  publishLive: PublishLive
  /** how long a digest waits for more notifications before it is mailed */
  digestDelayMs?: number
}

export interface ListQuery {
  page?: number
  limit?: number
  read?: boolean
  type?: string
}

/** What a notification shows of a user (its owner, its actor). */
type UserRow = Pick<
  Awaited<ReturnType<typeof notificationRepo.users>>[number],
  'firstName' | 'lastName' | 'type' | 'score' | 'profile'
>

/** A notification's API form, with the users it names when they exist. */
function formOf(r: NotificationRow, owner: UserRow | undefined, actor: UserRow | undefined) {
  return {
    _id: r.id,
    owner: userForm(owner, r.userId)!,
    notifyUser: userForm(actor, r.actorId),
    title: r.title,
    description: r.description,
    read: r.readAt !== null,
    data: r.ref,
    isAdmin: false,
    type: r.type,
    createdAt: r.createdAt,
    updatedAt: r.readAt ?? r.createdAt,
  }
}

function userForm(u: UserRow | undefined, id: string | null) {
  if (!id) return null
  const talent =
    ((u?.profile ?? {}) as { talent?: { tags?: unknown; availability?: unknown; skillIds?: unknown } })
      .talent ?? {}
  return {
    _id: id,
    firstName: u?.firstName ?? '',
    lastName: u?.lastName ?? '',
    type: u?.type ?? '',
    score: u?.score ?? 0,
    profile: {
      talent: {
        tags: Array.isArray(talent.tags) ? (talent.tags as string[]) : [],
        availability: typeof talent.availability === 'string' ? talent.availability : 'available',
        skillIds: Array.isArray(talent.skillIds) ? (talent.skillIds as object[]) : [],
      },
    },
  }
}

export class NotificationService {
  constructor(private readonly deps: NotificationDeps) {}

  /**
   * The events subscriber: the notifications of one event, in its transaction, written by one
   * statement (with the event's own row when it waits to be written), then each one's live push,
   * whose statement also queues the digest job of a latch it raised.
   */
  readonly onEvent = async (tx: Tx, event: DomainEvent, eventWrites: EventWrites): Promise<void> => {
    const notice = noticeOf(event)
    const recipients = recipientsOf(event)
    if (!notice || recipients.length === 0) return
    const { clock, jobs } = this.deps
    // The notifications, each person's mail preference and the digest latches, in one statement.
    const written = await notificationRepo.record(
      tx,
      {
        eventId: event.id,
        type: notice.type,
        title: notice.title,
        description: notice.description,
        actorId: event.actorId,
        ref: notice.ref,
        createdAt: event.createdAt,
        rows: recipients.map((userId) => ({ id: newId(event.createdAt.getTime()), userId })),
        defaultEmailTypes: DEFAULT_EMAIL_TYPES,
      },
      clock.now(),
      eventWrites.take(),
    )
    for (const row of written) {
      const { emailWanted: _, owner, actor, raised, ...notification } = row
      const form = formOf(notification, owner ?? undefined, actor ?? undefined)
      const digest = raised
        ? [
            jobs.enqueueWrite(
              tx,
              DIGEST_JOB,
              { userId: row.userId },
              { runAt: new Date(clock.now().getTime() + (this.deps.digestDelayMs ?? 60_000)) },
            ),
          ]
        : []
      await this.deps.publishLive(tx, { userIds: [row.userId], type: 'notification', data: form }, digest)
    }
  }

  /**
   * The digest job: in one transaction (queued behind any transaction still adding a notification
   * for the user), every unsent mail-worthy notification goes into one mail job and is marked
   * sent, and the latch goes down. Run twice, the second run finds nothing unsent.
   */
  async sendDigest({ userId }: DigestJob): Promise<void> {
    const { db, clock, jobs } = this.deps
    await db.transaction().execute(async (tx) => {
      await notificationRepo.lockDigest(tx, userId)
      const unsent = await notificationRepo.unsent(tx, userId)
      const now = clock.now()
      await notificationRepo.lowerDigest(tx, userId, now)
      if (unsent.length === 0) return
      const [user] = await notificationRepo.users(tx, [userId])
      await notificationRepo.markEmailed(
        tx,
        unsent.map((n) => n.id),
        now,
      )
      if (!user?.email || user.deletedAt) return
      const subject = unsent.length === 1 ? unsent[0]!.title : `${unsent.length} new notifications`
      const hello = user.firstName ? `Hello ${user.firstName},` : 'Hello,'
      await jobs.enqueue(
        tx,
        'mail.send',
        noticeMail('notification_digest', user.email, subject, [
          hello,
          ...unsent.map((n) => `${n.title}: ${n.description}`),
          'You can choose which notifications are e-mailed to you in your account settings.',
        ]),
      )
    })
  }

  async list(userId: string, q: ListQuery) {
    const { db } = this.deps
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const filter = {
      userId,
      ...(q.read !== undefined ? { read: q.read } : {}),
      ...(q.type ? { type: q.type } : {}),
    }
    // One statement; a page past the end has no row to carry the totals, and counts them apart.
    const rows = await notificationRepo.pageWithUsers(db, filter, { page, limit })
    const first = rows[0]
    const { total, unread } = first
      ? { total: Number(first.total), unread: first.unread }
      : await notificationRepo.totals(db, filter)
    return {
      page,
      pages: Math.ceil(total / limit),
      limit,
      total,
      unread,
      notification: rows.map((r) => formOf(r, r.owner ?? undefined, r.actor ?? undefined)),
    }
  }

  async markOne(userId: string, id: string) {
    const { db, clock } = this.deps
    return inTransaction(db, async (tx) => {
      const row = await notificationRepo.get(tx, userId, id)
      if (!row) throw errors.notFound('notification')
      await notificationRepo.markRead(tx, userId, clock.now(), id)
      const [form] = await this.#forms(tx, [(await notificationRepo.get(tx, userId, id))!])
      return form!
    })
  }

  async markAll(userId: string) {
    const updated = await notificationRepo.markRead(this.deps.db, userId, this.deps.clock.now())
    return { updated, unread: 0 }
  }

  async emailSettings(userId: string) {
    const types = (await notificationRepo.emailTypes(this.deps.db, userId)) ?? [...DEFAULT_EMAIL_TYPES]
    return { email: types, available: [...NOTIFICATION_TYPES], defaults: [...DEFAULT_EMAIL_TYPES] }
  }

  async setEmailSettings(userId: string, email: string[]) {
    await notificationRepo.setEmailTypes(this.deps.db, userId, [...new Set(email)], this.deps.clock.now())
    return this.emailSettings(userId)
  }

  async #forms(ex: Db | Tx, rows: NotificationRow[]) {
    const ids = [...new Set(rows.flatMap((r) => [r.userId, ...(r.actorId ? [r.actorId] : [])]))]
    const users = new Map((await notificationRepo.users(ex, ids)).map((u) => [u.id, u]))
    return rows.map((r) => formOf(r, users.get(r.userId), users.get(r.actorId ?? '')))
  }
}
