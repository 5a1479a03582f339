// Referrals: each account has a referral code; an account that signs up with it is the referrer's
// (at most REFERRAL_LIMIT per code). The sign-up and the referred account's first completed job
// are domain events (`referral.signup`, `referral.job_completed`), emitted in the transaction of
// the change, so the referrer's notification and feed entries commit with it. Referrers see whom
// they brought and how far each got, and may invite people by e-mail with their code.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { noticeMail } from '../../platform/mail/templates.ts'
import type { EventService } from '../events/types.ts'
import { referralRepo } from './repo.ts'

const DAY_MS = 24 * 3600 * 1000

export interface ReferralDeps {
  db: Db
  clock: Clock
  jobs: JobQueue
  events: EventService
  /** how many accounts may sign up with one code */
  limit: number
  /** how many addresses one user may invite per 24 hours */
  invitesPerDay: number
  /** where the invitation mail sends people */
  publicUrl: string
}

export class ReferralService {
  constructor(private readonly deps: ReferralDeps) {
    // A referred account's first completed job (either party of the job) is the referrer's news.
    deps.events.subscribe('referrals', async (tx, event) => {
      if (event.type !== 'collection.completed') return
      for (const userId of event.audience)
        await this.#firstJob(tx, userId, event.data.collectionId, event.createdAt)
    })
  }

  /** POST /v1/auth/referral/validate: what the SDK's validateReferral answers for a code. */
  async validate(code: string) {
    const referrer = await referralRepo.byCode(this.deps.db, code.trim().toUpperCase())
    if (!referrer) throw errors.notFound('referral code')
    const used = await referralRepo.countReferred(this.deps.db, referrer.id)
    return {
      valid: used < this.deps.limit,
      userId: referrer.id,
      referralCounts: used,
      totalAllowedReferrals: this.deps.limit,
      referralId: referrer.referralCode,
      role: referrer.role,
      isKyc: referrer.kyc,
    }
  }

  /**
   * In the sign-up transaction: the referrer of `code` (400 at `path` when unknown), with their
   * row locked and their uses counted (422 once the code is used up).
   */
  async claim(tx: Tx, code: string, path: string): Promise<string> {
    const referrer = await referralRepo.byCode(tx, code.trim().toUpperCase())
    if (!referrer) throw errors.field(path, 'Unknown referral code')
    await referralRepo.lockReferrer(tx, referrer.id)
    if ((await referralRepo.countReferred(tx, referrer.id)) >= this.deps.limit)
      throw errors.named(
        'REFERRAL_CODE_USED_UP',
        'This referral code has been used the allowed number of times',
        {
          errors: [{ path, message: 'used up' }],
        },
      )
    return referrer.id
  }

  /** In the sign-up transaction, once the account exists: the referrer's news. */
  async signedUp(tx: Tx, user: { id: string; referrerId: string }) {
    await this.deps.events.emit(tx, {
      type: 'referral.signup',
      actorId: user.id,
      audience: [user.referrerId],
      data: { referrerId: user.referrerId, userId: user.id },
      key: `referral.signup:${user.id}`,
    })
  }

  async #firstJob(tx: Tx, userId: string, collectionId: string, at: Date) {
    const referrer = await referralRepo.referrerOf(tx, userId)
    if (!referrer) return
    const first = await referralRepo.insertCompletion(tx, {
      userId,
      referrerId: referrer.id,
      collectionId,
      completedAt: at,
    })
    if (!first) return
    await this.deps.events.emit(tx, {
      type: 'referral.job_completed',
      actorId: userId,
      audience: [referrer.id],
      collectionId,
      data: { referrerId: referrer.id, userId, collectionId },
      key: `referral.job_completed:${userId}`,
    })
  }

  /** GET /v1/referrals: the accounts that signed up with the caller's code, newest first. */
  async list(userId: string, q: { page?: number; limit?: number }) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await referralRepo.referred(this.deps.db, userId, { page, limit })
    return {
      data: rows.map((r) => ({
        _id: r.id,
        firstName: r.firstName,
        lastName: r.lastName,
        userName: r.userName,
        type: r.type,
        isVerified: r.emailVerified,
        completedJob: r.firstJobId !== null,
        firstJob: r.firstJobId,
        firstJobCompletedAt: r.firstJobCompletedAt,
        createdAt: r.createdAt,
      })),
      total,
      pages: Math.ceil(total / limit),
      page,
      limit,
    }
  }

  /** GET /v1/referrals/stats. */
  async stats(userId: string) {
    const [s, me] = await Promise.all([
      referralRepo.stats(this.deps.db, userId),
      referralRepo.inviter(this.deps.db, userId),
    ])
    if (!me) throw errors.notFound('account')
    return {
      referralCode: me.referralCode,
      totalReferrals: s.total,
      verifiedReferrals: s.verified,
      completedJobReferrals: s.completed,
      totalAllowedReferrals: this.deps.limit,
      remainingReferrals: Math.max(0, this.deps.limit - s.total),
      invitesSent: s.invited,
      points: Number(s.points ?? 0),
    }
  }

  /**
   * POST /v1/referrals/invite: mails each address the caller's code, in one transaction with the
   * record of it. An address with an account, or one the caller invited in the last 24 hours,
   * gets no mail, and the answer does not say which (it would tell who has an account).
   */
  async invite(userId: string, emails: string[]) {
    const { db, clock, jobs } = this.deps
    const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()))]
    return db.transaction().execute(async (tx) => {
      // One inviter at a time, so the daily count holds under concurrent requests.
      await referralRepo.lockReferrer(tx, userId)
      const me = await referralRepo.inviter(tx, userId)
      if (!me) throw errors.notFound('account')
      if (me.email && wanted.includes(me.email.toLowerCase()))
        throw errors.field('/emails', 'You cannot invite yourself')
      const now = clock.now()
      const recent = await referralRepo.sentSince(tx, userId, new Date(now.getTime() - DAY_MS))
      const fresh = wanted.filter((e) => !recent.has(e))
      if (recent.size + fresh.length > this.deps.invitesPerDay)
        throw errors.named(
          'REFERRAL_INVITES_EXHAUSTED',
          `At most ${this.deps.invitesPerDay} addresses can be invited in 24 hours; ${Math.max(0, this.deps.invitesPerDay - recent.size)} left`,
        )
      const registered = await referralRepo.registered(tx, fresh)
      const name = `${me.firstName} ${me.lastName}`.trim() || 'A member'
      const link = `${this.deps.publicUrl.replace(/\/$/, '')}/?referral=${encodeURIComponent(me.referralCode)}`
      for (const email of fresh) {
        await referralRepo.recordInvite(tx, { id: newId(now.getTime()), userId, email, now })
        if (registered.has(email)) continue
        await jobs.enqueue(
          tx,
          'mail.send',
          noticeMail('referral_invite', email, `${name} invites you to WorkPay`, [
            'Hello,',
            `${name} invites you to join WorkPay, where people find work and get paid in crypto.`,
            `Sign up with the referral code ${me.referralCode}: ${link}`,
            'If you do not know this person, ignore this mail.',
          ]),
        )
      }
      return { emails: wanted, referralCode: me.referralCode }
    })
  }
}
