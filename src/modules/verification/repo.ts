// SQL for identity verification: sessions and their images.
import type { Insertable, Selectable } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { countedPage } from '../../db/reads.ts'
import type {
  IdentityVerificationMediaTable,
  IdentityVerificationsTable,
  VerificationStatus,
} from '../../db/tables/verification.ts'

export type VerificationRow = Selectable<IdentityVerificationsTable>
export type MediaRow = Selectable<IdentityVerificationMediaTable>

/** The states of a session still in progress (at most one per account). */
export const OPEN_STATUSES: readonly VerificationStatus[] = ['created', 'submitted', 'review']

export const verificationRepo = {
  async insert(ex: Executor, row: Insertable<IdentityVerificationsTable>): Promise<VerificationRow> {
    return ex.insertInto('identityVerifications').values(row).returningAll().executeTakeFirstOrThrow()
  },

  get(ex: Executor, id: string) {
    return ex.selectFrom('identityVerifications').selectAll().where('id', '=', id).executeTakeFirst()
  },

  lock(tx: Tx, id: string) {
    return tx
      .selectFrom('identityVerifications')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst()
  },

  byProviderSession(ex: Executor, provider: 'operator' | 'veriff', sessionId: string) {
    return ex
      .selectFrom('identityVerifications')
      .selectAll()
      .where('provider', '=', provider)
      .where('providerSessionId', '=', sessionId)
      .executeTakeFirst()
  },

  /** The account's session in progress, if any. */
  open(ex: Executor, userId: string) {
    return ex
      .selectFrom('identityVerifications')
      .selectAll()
      .where('userId', '=', userId)
      .where('status', 'in', OPEN_STATUSES)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  /** Every session of the account, newest first (`withDeleted`: the deleted ones too). */
  ofUser(ex: Executor, userId: string, withDeleted: boolean) {
    let q = ex.selectFrom('identityVerifications').selectAll().where('userId', '=', userId)
    if (!withDeleted) q = q.where('deletedAt', 'is', null)
    return q.orderBy('createdAt', 'desc').orderBy('id', 'desc').execute()
  },

  async countOfUser(ex: Executor, userId: string): Promise<number> {
    const row = await ex
      .selectFrom('identityVerifications')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('userId', '=', userId)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  },

  /** The newest session of the account that is not deleted. */
  latest(ex: Executor, userId: string) {
    return ex
      .selectFrom('identityVerifications')
      .select(['id', 'status'])
      .where('userId', '=', userId)
      .where('deletedAt', 'is', null)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()
  },

  async isVerified(ex: Executor, userId: string): Promise<boolean> {
    const row = await ex
      .selectFrom('identityVerifications')
      .select('id')
      .where('userId', '=', userId)
      .where('status', '=', 'approved')
      .limit(1)
      .executeTakeFirst()
    return row !== undefined
  },

  update(tx: Tx, id: string, set: Partial<Insertable<IdentityVerificationsTable>>) {
    return tx
      .updateTable('identityVerifications')
      .set(set)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow()
  },

  list(ex: Executor, f: { status?: VerificationStatus | undefined; page: number; limit: number }) {
    let q = ex.selectFrom('identityVerifications')
    if (f.status) q = q.where('status', '=', f.status)
    return countedPage(
      q,
      (s) => s.selectAll(),
      { by: ['createdAt', 'id'], first: 'oldest' },
      { page: f.page, limit: f.limit },
    )
  },

  insertMedia(tx: Tx, row: Insertable<IdentityVerificationMediaTable>) {
    return tx.insertInto('identityVerificationMedia').values(row).returningAll().executeTakeFirstOrThrow()
  },

  /** Blanks the personal data of every verification of the user (a deleted account), keeping the
   * status and dates an operator may need to answer for the decision. */
  async erasePersonalData(tx: Tx, userId: string, now: Date) {
    await tx
      .updateTable('identityVerifications')
      .set((eb) => ({
        firstName: '',
        lastName: '',
        gender: '',
        country: '',
        fullAddress: '',
        documentNumber: '',
        dateOfBirth: '',
        sessionUrl: '',
        decision: null,
        deletedAt: eb.fn.coalesce('deletedAt', eb.val(now)),
        updatedAt: now,
      }))
      .where('userId', '=', userId)
      .execute()
  },

  /** The images of every verification of the user. */
  mediaOfUser(ex: Executor, userId: string) {
    return ex
      .selectFrom('identityVerificationMedia as m')
      .innerJoin('identityVerifications as v', 'v.id', 'm.verificationId')
      .select(['m.id', 'm.fileId'])
      .where('v.userId', '=', userId)
      .execute()
  },

  async deleteMedia(ex: Executor, id: string) {
    await ex.deleteFrom('identityVerificationMedia').where('id', '=', id).execute()
  },

  media(ex: Executor, verificationIds: readonly string[]) {
    if (verificationIds.length === 0) return Promise.resolve([] as MediaRow[])
    return ex
      .selectFrom('identityVerificationMedia')
      .selectAll()
      .where('verificationId', 'in', verificationIds)
      .orderBy('createdAt')
      .orderBy('id')
      .execute()
  },
}
