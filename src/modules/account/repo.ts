// SQL for accounts: creation, the profile row, tags, achievements, two-factor setup, the people
// search and deletion.
import { type Selectable, sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import type { AchievementsTable } from '../../db/tables/accounts.ts'
import { newId } from '../../platform/crypto/ids.ts'

export const accountRepo = {
  insertUser(
    ex: Executor,
    user: {
      id: string
      email: string | null
      firstName: string
      lastName: string
      passwordHash: string | null
      userName: string
      referralCode: string
      referredBy: string | null
      accountType: string
      web3Address: string | null
      type?: string
      searchText: string
      now: Date
    },
  ) {
    const { now, ...values } = user
    return ex
      .insertInto('users')
      .values({
        ...values,
        profile: JSON.stringify({}),
        meta: JSON.stringify({ pointScore: 0 }),
        socials: JSON.stringify({}),
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst()
  },

  userNameTaken(ex: Executor, userName: string) {
    return ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['userName']), '=', userName.toLowerCase()))
      .executeTakeFirst()
  },

  async emailTaken(ex: Executor, email: string): Promise<boolean> {
    const row = await ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
    return !!row
  },

  /** The sign-in facts of a live account by email (any case). */
  liveByEmail(ex: Executor, email: string) {
    return ex
      .selectFrom('users')
      .select(['id', 'firstName', 'emailVerified', 'twoFaEnabled', 'twoFaType'])
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  getUser(ex: Executor, id: string) {
    return ex
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  async markWalletGenerated(ex: Executor, id: string): Promise<void> {
    await ex
      .updateTable('users')
      .set({ walletGenerated: true })
      .where('id', '=', id)
      .where('walletGenerated', '=', false)
      .execute()
  },
}

export type UserRow = NonNullable<Awaited<ReturnType<typeof accountRepo.getUser>>>

/** The Tag columns as a JSON object per tag, for pages that embed tags in one query. */
export const TAG_JSON = sql`jsonb_build_object(
  'id', t.id, 'name', t.name, 'key', t.key, 'color', t.color, 'description', t.description,
  'icon', t.icon, 'categories', t.categories, 'isParent', t.is_parent, 'type', t.type,
  'entryCount', t.entry_count, 'createdAt', t.created_at, 'updatedAt', t.updated_at,
  'version', t.version)`

export const ACHIEVEMENT_JSON = sql`jsonb_build_object(
  'id', a.id, 'owner', a.owner, 'type', a.type, 'total', a.total, 'value', a.value,
  'createdAt', a.created_at, 'updatedAt', a.updated_at, 'version', a.version)`

/** The account's tags (`tagList`, in order) and achievements (`achievementList`) as JSON columns. */
export function userLists() {
  return [
    sql<TagJson[]>`(select coalesce(jsonb_agg(${TAG_JSON} order by ut.position), '[]'::jsonb)
      from user_tags ut join tags t on t.id = ut.tag_id where ut.user_id = users.id)`.as('tagList'),
    sql<
      AchievementJson[]
    >`(select coalesce(jsonb_agg(${ACHIEVEMENT_JSON} order by a.created_at, a.id), '[]'::jsonb)
      from achievements a where a.owner = users.id)`.as('achievementList'),
  ] as const
}

export const profileRepo = {
  /**
   * The live account's row, locked against other changes of it until the transaction ends. The
   * lock is FOR NO KEY UPDATE: it serialises the account's own edits but lets other transactions
   * insert rows that reference the account (their foreign-key check takes KEY SHARE). FOR UPDATE
   * made a job created with a new tag wait for a profile save of its creator that was itself
   * waiting for that tag's insert: a deadlock.
   */
  lockUser(tx: Tx, id: string) {
    return tx
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .forNoKeyUpdate()
      .executeTakeFirst()
  },

  saveProfile(
    tx: Tx,
    id: string,
    set: {
      firstName: string
      lastName: string
      profile: unknown
      socials: unknown
      profileCompleteness: number
      searchText: string
      tagKeys: string[]
      isPrivate: boolean
      meta?: unknown
      bgImageId?: string | null
      profileImageId?: string | null
      type?: string
      now: Date
    },
  ) {
    const { now, profile, socials, meta, ...rest } = set
    return tx
      .updateTable('users')
      .set((eb) => ({
        ...rest,
        profile: JSON.stringify(profile),
        socials: JSON.stringify(socials),
        ...(meta !== undefined ? { meta: JSON.stringify(meta) } : {}),
        updatedAt: now,
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .execute()
  },

  async userTagIds(ex: Executor, userId: string): Promise<string[]> {
    const rows = await ex
      .selectFrom('userTags')
      .select('tagId')
      .where('userId', '=', userId)
      .orderBy('position')
      .execute()
    return rows.map((r) => r.tagId)
  },

  /** Sets the account's tags to `tagIds`, in that order, in one statement. */
  async setUserTags(tx: Tx, userId: string, tagIds: string[]) {
    const ids = sql`${JSON.stringify(tagIds)}::jsonb`
    await sql`
      with gone as (
        delete from user_tags
        where user_id = ${userId}
          and tag_id::text not in (select jsonb_array_elements_text(${ids}))
      )
      insert into user_tags (user_id, tag_id, position)
      select ${userId}, t.id, t.n - 1 from jsonb_array_elements_text(${ids}) with ordinality as t(id, n)
      on conflict (user_id, tag_id) do update set position = excluded.position`.execute(tx)
  },

  /**
   * The account row with its tags and achievements in one query (the profile read, #36); with
   * `listed`, only an account other users can see: a live one that has verified its email (#39).
   */
  getUserWithLists(ex: Executor, id: string, opts: { listed?: boolean } = {}) {
    return ex
      .selectFrom('users')
      .selectAll('users')
      .select(userLists())
      .where('users.id', '=', id)
      .where('users.deletedAt', 'is', null)
      .$if(opts.listed === true, (q) => q.where('users.emailVerified', '=', true))
      .executeTakeFirst()
  },

  /** Counts one more event of `type` for `owner` (creating the record on the first one). */
  async bumpAchievement(ex: Executor, owner: string, type: string, pointsPerEvent: number, now: Date) {
    await ex
      .insertInto('achievements')
      .values({
        id: newId(now.getTime()),
        owner,
        type,
        total: '1',
        value: String(pointsPerEvent),
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) =>
        oc.columns(['owner', 'type']).doUpdateSet({
          total: sql`(achievements.total::bigint + 1)::text`,
          value: sql`(achievements.value::bigint + ${pointsPerEvent})::text`,
          updatedAt: now,
          version: sql`achievements.version + 1`,
        }),
      )
      .execute()
  },

  async setKyc(ex: Executor, id: string, kyc: { kyc: boolean; kycStatus: string | null }, now: Date) {
    await ex
      .updateTable('users')
      .set({ kyc: kyc.kyc, kycStatus: kyc.kycStatus, updatedAt: now })
      .where('id', '=', id)
      .execute()
  },

  async setScore(ex: Executor, id: string, score: number, now: Date) {
    await ex.updateTable('users').set({ score, updatedAt: now }).where('id', '=', id).execute()
  },

  referredBy(ex: Executor, id: string) {
    return ex.selectFrom('users').select('referredBy').where('id', '=', id).executeTakeFirst()
  },

  /**
   * Removes the personal data of a deleted account and frees its email and user name. Financial
   * records (wallets, ledger, transactions, withdrawals) reference the id and are kept.
   */
  async anonymise(tx: Tx, id: string, email: string | null, now: Date) {
    await tx
      .updateTable('users')
      .set((eb) => ({
        email: null,
        firstName: '',
        lastName: '',
        passwordHash: null,
        status: false,
        profile: JSON.stringify({}),
        socials: JSON.stringify({}),
        meta: JSON.stringify({ pointScore: 0 }),
        twoFaType: '',
        twoFaEnabled: false,
        twoFaSecret: null,
        twoFaLastStep: null,
        securityQuestion: '',
        profileCompleteness: 0,
        userName: `deleted-${id}`,
        web3Address: null,
        web3Onboard: false,
        bgImageId: null,
        profileImageId: null,
        searchText: '',
        tagKeys: [],
        deletedAt: now,
        updatedAt: now,
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .execute()
    await tx.deleteFrom('userTags').where('userId', '=', id).execute()
    await tx.deleteFrom('achievements').where('owner', '=', id).execute()
    await tx.deleteFrom('twoFaSetups').where('userId', '=', id).execute()
    await tx
      .deleteFrom('bookmarks')
      .where((eb) =>
        eb.or([eb('userId', '=', id), eb.and([eb('type', '=', 'user'), eb('reference', '=', id)])]),
      )
      .execute()
    if (email) await tx.deleteFrom('mails').where('toAddress', '=', email.toLowerCase()).execute()
  },
}

export interface TagJson {
  id: string
  name: string
  key: string
  color: string
  description: string
  icon: string
  categories: string[]
  isParent: boolean
  type: string
  entryCount: number
  createdAt: string
  updatedAt: string
  version: number
}

export interface AchievementJson {
  id: string
  owner: string
  type: string
  total: string
  value: string
  createdAt: string
  updatedAt: string
  version: number
}

export type AchievementRow = Selectable<AchievementsTable>
