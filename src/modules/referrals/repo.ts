// The only SQL of referrals: the referral_invites and referral_completions tables, and the reads
// of accounts by referral code and by referrer.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { countedPage, type PageRequest } from '../../db/reads.ts'

export const referralRepo = {
  /** The live account whose code this is (exact match: codes are upper case). */
  byCode(ex: Executor, code: string) {
    return ex
      .selectFrom('users')
      .select(['id', 'referralCode', 'role', 'kyc', 'emailVerified'])
      .where('referralCode', '=', code)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** Locks the referrer's row so concurrent sign-ups with one code are counted one at a time. */
  async lockReferrer(tx: Tx, id: string) {
    await tx.selectFrom('users').select('id').where('id', '=', id).forUpdate().execute()
  },

  /** Accounts that signed up with the referrer's code (deleted ones included: a use is a use). */
  async countReferred(ex: Executor, referrerId: string) {
    const row = await ex
      .selectFrom('users')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('referredBy', '=', referrerId)
      .executeTakeFirstOrThrow()
    return row.n
  },

  /** One page of the live referred accounts, newest first, with their first completed job. */
  referred(ex: Executor, referrerId: string, p: PageRequest) {
    return countedPage(
      ex
        .selectFrom('users as u')
        // one completion at most per account: the join adds no row
        .leftJoin('referralCompletions as rc', 'rc.userId', 'u.id')
        .where('u.referredBy', '=', referrerId)
        .where('u.deletedAt', 'is', null),
      (q) =>
        q.select([
          'u.id',
          'u.firstName',
          'u.lastName',
          'u.userName',
          'u.type',
          'u.emailVerified',
          'u.createdAt',
          'rc.collectionId as firstJobId',
          'rc.completedAt as firstJobCompletedAt',
        ]),
      { by: ['u.createdAt', 'u.id'], first: 'newest' },
      p,
    )
  },

  async stats(ex: Executor, referrerId: string) {
    const row = await ex
      .selectFrom('users as u')
      .select([
        sql<number>`count(*)::int`.as('total'),
        sql<number>`(count(*) filter (where u.email_verified and u.deleted_at is null))::int`.as('verified'),
        sql<number>`(select count(*)::int from referral_completions rc where rc.referrer_id = ${referrerId})`.as(
          'completed',
        ),
        sql<number>`(select count(*)::int from referral_invites ri where ri.user_id = ${referrerId})`.as(
          'invited',
        ),
        sql<string>`(select coalesce(a.value, '0') from achievements a where a.owner = ${referrerId} and a.type = 'referral')`.as(
          'points',
        ),
      ])
      .where('u.referredBy', '=', referrerId)
      .executeTakeFirstOrThrow()
    return row
  },

  /** The referrer of a live account, when that referrer is live too. */
  referrerOf(ex: Executor, userId: string) {
    return ex
      .selectFrom('users as u')
      .innerJoin('users as r', 'r.id', 'u.referredBy')
      .select('r.id')
      .where('u.id', '=', userId)
      .where('u.deletedAt', 'is', null)
      .where('r.deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** Records a referred account's first completed job; false when it had one already. */
  async insertCompletion(
    ex: Executor,
    row: { userId: string; referrerId: string; collectionId: string; completedAt: Date },
  ) {
    const inserted = await ex
      .insertInto('referralCompletions')
      .values(row)
      .onConflict((oc) => oc.column('userId').doNothing())
      .returning('userId')
      .executeTakeFirst()
    return inserted !== undefined
  },

  /** The names and code an invitation mail shows. */
  inviter(ex: Executor, id: string) {
    return ex
      .selectFrom('users')
      .select(['firstName', 'lastName', 'referralCode', 'email'])
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** Which of these (lower-cased) addresses belong to a live account. */
  async registered(ex: Executor, emails: string[]) {
    if (emails.length === 0) return new Set<string>()
    const rows = await ex
      .selectFrom('users')
      .select(sql<string>`lower(email)`.as('email'))
      .where(sql`lower(email)`, 'in', emails)
      .where('deletedAt', 'is', null)
      .execute()
    return new Set(rows.map((r) => r.email))
  },

  /** The addresses the inviter mailed since `since`. */
  async sentSince(ex: Executor, userId: string, since: Date) {
    const rows = await ex
      .selectFrom('referralInvites')
      .select('email')
      .where('userId', '=', userId)
      .where('lastSentAt', '>', since)
      .execute()
    return new Set(rows.map((r) => r.email))
  },

  /** Notes that the inviter mailed the address now. */
  async recordInvite(ex: Executor, row: { id: string; userId: string; email: string; now: Date }) {
    await ex
      .insertInto('referralInvites')
      .values({ id: row.id, userId: row.userId, email: row.email, createdAt: row.now, lastSentAt: row.now })
      .onConflict((oc) =>
        oc.columns(['userId', 'email']).doUpdateSet({
          lastSentAt: row.now,
          sentCount: sql`referral_invites.sent_count + 1`,
        }),
      )
      .execute()
  },
}
