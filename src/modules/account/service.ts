// Accounts: creation (shared by email and web3 sign-up), the profile views, profile update with
// tags and completeness, the people search and achievements.
import { randomInt } from 'node:crypto'
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { ReadCache } from '../../db/read-cache.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { tagFromJson, toAchievement, toFullUser, toPublicUser, toSearchUser } from './forms.ts'
import { type OnboardInput, onboardUpdate } from './onboard.ts'
import {
  buildSearchText,
  mergeMeta,
  mergeProfile,
  type ProfileUpdate,
  profileCompleteness,
  type Socials,
  type StoredProfile,
  searchQuery,
} from './profile.ts'
import { accountRepo, profileRepo } from './repo.ts'
import { searchRepo } from './search-repo.ts'
import { type TagRow, tagKey, tagService, type toTag } from './tags.ts'

/** Points a referrer's `referral` achievement gains per account that signs up with the code. */
export const REFERRAL_POINTS = 10

/** Called in the sign-up transaction for every new account. */
export type UserCreatedHook = (tx: Tx, user: { id: string }) => Promise<void>

export type FullUser = ReturnType<typeof toFullUser>

/** An account other users can see (#39), before what a private profile hides from them. */
export interface ListedProfile {
  row: Parameters<typeof toPublicUser>[0]
  tags: ReturnType<typeof toTag>[]
  achievements: ReturnType<typeof toAchievement>[]
}

export interface NewUser {
  email: string | null
  firstName: string
  lastName: string
  passwordHash: string | null
  accountType: 'email' | 'web3' | 'google'
  web3Address?: string | null
  referralCode?: string | null
  /** the body field that carried the referral code, for the error of an unknown one */
  referralPath?: string
  /** the account type (`talent`, `business`); the column default `recipient` otherwise */
  type?: string
}

const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'

function randomReferralCode() {
  let s = ''
  for (let i = 0; i < 8; i++) s += REFERRAL_ALPHABET[randomInt(REFERRAL_ALPHABET.length)]
  return s
}

function userNameBase(input: NewUser): string {
  const fromName = `${input.firstName}${input.lastName}`.toLowerCase().replace(/[^a-z0-9]/g, '')
  const fromEmail = (input.email ?? '')
    .split('@')[0]!
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
  return (fromName || fromEmail || 'user').slice(0, 20)
}

/** The search text of a new account (names and userName), normalised like every later update. */
export function searchText(parts: Array<string | null | undefined>): string {
  const [firstName = '', lastName = '', userName = ''] = parts.map((p) => p ?? '')
  return buildSearchText({ firstName, lastName, userName, isPrivate: false, profile: {}, tags: [] })
}

export interface SearchParams {
  page?: number
  limit?: number
  role?: string
  profileCompletenessMin?: number
  profileCompletenessMax?: number
  tags?: string
  owner?: boolean
  search?: string
}

/** What sign-up needs of referrals (the referrals service), in the sign-up transaction. */
export interface ReferralHooks {
  /** the referrer whose code this is (400 at `path` when unknown, 422 when used up) */
  claim(tx: Tx, code: string, path: string): Promise<string>
  /** the account exists: the referrer's news */
  signedUp(tx: Tx, user: { id: string; referrerId: string }): Promise<void>
}

/** What the account needs of file storage (the files module's service). */
export interface FileLookup {
  summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, object>>
  assertOwned(
    ex: Executor,
    userId: string,
    ids: readonly string[],
    opts?: { path?: string; visibility?: 'public' | 'private' },
  ): Promise<unknown>
}

export class AccountService {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      /** file storage, for profile images */
      files: FileLookup
      /** the new account's custodial key and wallets, in the creating transaction */
      provisionWallet: (tx: Tx, userId: string) => Promise<void>
      referrals: ReferralHooks
      /** full profiles by account id, dropped by any write to what they are read from */
      profiles?: ReadCache<FullUser>
      /** what other users may see of an account (or that it is not there), by account id, alike */
      listedProfiles?: ReadCache<ListedProfile | null>
    },
  ) {}

  /** Inserts a new account with a unique generated userName and referral code. */
  async createUser(tx: Tx, input: NewUser): Promise<{ id: string; userName: string }> {
    const now = this.deps.clock.now()
    let referredBy: string | null = null
    if (input.referralCode)
      referredBy = await this.deps.referrals.claim(
        tx,
        input.referralCode,
        input.referralPath ?? '/referralCode',
      )
    const base = userNameBase(input)
    for (let attempt = 0; attempt < 10; attempt++) {
      const userName = `${base}${randomInt(1000, 10 ** (4 + Math.min(attempt, 4)))}`
      if (await accountRepo.userNameTaken(tx, userName)) continue
      const id = newId()
      const inserted = await accountRepo.insertUser(tx, {
        id,
        email: input.email,
        firstName: input.firstName,
        lastName: input.lastName,
        passwordHash: input.passwordHash,
        userName,
        referralCode: randomReferralCode(),
        referredBy,
        accountType: input.accountType,
        web3Address: input.web3Address ?? null,
        ...(input.type ? { type: input.type } : {}),
        searchText: searchText([input.firstName, input.lastName, userName]),
        now,
      })
      // A conflict on the email is a real conflict; one on a generated value is retried.
      if (!inserted) {
        if (input.email && (await this.emailTaken(tx, input.email)))
          throw errors.conflict('This email is already registered', 'EMAIL_TAKEN')
        continue
      }
      await this.#referral(tx, { id })
      if (referredBy) await this.deps.referrals.signedUp(tx, { id, referrerId: referredBy })
      await this.deps.provisionWallet(tx, id)
      await accountRepo.markWalletGenerated(tx, id)
      return { id, userName }
    }
    throw new Error('could not generate a unique user name')
  }

  emailTaken(ex: Executor, email: string): Promise<boolean> {
    return accountRepo.emailTaken(ex, email)
  }

  async getFullUser(id: string, ex: Executor = this.deps.db): Promise<FullUser> {
    const { profiles } = this.deps
    if (profiles && ex === this.deps.db) return profiles.get(id, () => this.#loadFullUser(id, ex))
    return this.#loadFullUser(id, ex)
  }

  async #loadFullUser(id: string, ex: Executor): Promise<FullUser> {
    // One query for the account, its tags and achievements; a second only when it has images.
    const found = await profileRepo.getUserWithLists(ex, id)
    if (!found) throw errors.notFound('account')
    const { tagList, achievementList, ...row } = found
    const imageIds = [row.bgImageId, row.profileImageId].filter((v): v is string => !!v)
    const images = imageIds.length ? await this.deps.files.summaries(ex, imageIds) : new Map<string, object>()
    return toFullUser(row, {
      tagsIds: tagList.map(tagFromJson),
      achievements: achievementList.map(toAchievement),
      bgImage: row.bgImageId ? images.get(row.bgImageId) : undefined,
      profileImage: row.profileImageId ? images.get(row.profileImageId) : undefined,
    })
  }

  /**
   * #37: merges the sent fields into the profile (sub-field by sub-field), replaces the tag set
   * when `profile.talent.tags` is sent (entry counts move with it), and recomputes completeness and
   * the search text, all in one transaction with the account row locked.
   */
  async updateProfile(userId: string, update: ProfileUpdate) {
    return this.deps.db.transaction().execute(async (tx) => {
      const row = await profileRepo.lockUser(tx, userId)
      if (!row) throw errors.notFound('account')
      const stored = {
        profile: (row.profile ?? {}) as StoredProfile,
        socials: (row.socials ?? {}) as Socials,
      }
      const merged = mergeProfile(stored, update)
      const beforeIds = await profileRepo.userTagIds(tx, userId)
      let tags: TagRow[]
      let afterIds: string[] | undefined
      const newTags = update.profile?.talent?.tags
      if (newTags !== undefined) {
        tags = await tagService.ensure(tx, newTags, '/profile/talent/tags')
        afterIds = tags.map((t) => t.id)
        await profileRepo.setUserTags(tx, userId, afterIds)
      } else {
        tags = await tagService.byIds(tx, beforeIds)
      }
      const talent = { ...merged.profile.talent }
      if (tags.length) talent.tags = tags.map((t) => t.name)
      else delete talent.tags
      const profile = { ...merged.profile, talent }
      // Profile images are the caller's own public uploads, shown as file summaries.
      for (const field of ['bgImage', 'profileImage'] as const) {
        const fileId = update[field]
        if (!fileId) continue
        await this.deps.files.assertOwned(tx, userId, [fileId], { path: `/${field}`, visibility: 'public' })
      }
      const firstName = update.firstName?.trim() ?? row.firstName
      const lastName = update.lastName?.trim() ?? row.lastName
      const isPrivate = update.isPrivate ?? row.isPrivate
      const meta =
        update.meta === undefined
          ? undefined
          : mergeMeta((row.meta ?? {}) as Record<string, unknown>, update.meta)
      await profileRepo.saveProfile(tx, userId, {
        firstName,
        lastName,
        profile,
        socials: merged.socials,
        profileCompleteness: profileCompleteness(profile, merged.socials),
        searchText: buildSearchText({
          firstName,
          lastName,
          userName: row.userName,
          isPrivate,
          profile,
          tags,
        }),
        tagKeys: tags.map((t) => t.key),
        isPrivate,
        ...(meta ? { meta } : {}),
        ...(update.bgImage !== undefined ? { bgImageId: update.bgImage || null } : {}),
        ...(update.profileImage !== undefined ? { profileImageId: update.profileImage || null } : {}),
        ...(update.type ? { type: update.type } : {}),
        now: this.deps.clock.now(),
      })
      // The tags' counts last, read back by the answer: other saves of the same tags wait on
      // their rows only from here to the commit.
      if (afterIds) await tagService.swap(tx, beforeIds, afterIds)
      return this.getFullUser(userId, tx)
    })
  }

  /** POST /v1/account/onboard: skill category, profile image and type, in one profile update. */
  onboard(userId: string, input: OnboardInput) {
    return this.updateProfile(userId, onboardUpdate(input))
  }

  /**
   * #39: an account's public form; unknown, deleted and unverified accounts are 404. A private
   * profile shows other users only who it is: its talent (availability, tags) and achievements
   * are left out.
   */
  async getPublicUser(viewerId: string, id: string) {
    const { listedProfiles } = this.deps
    const load = () => this.#loadListedProfile(id)
    const found = await (listedProfiles ? listedProfiles.get(id, load) : load())
    if (!found) throw errors.notFound('user')
    const { row, tags, achievements } = found
    if (row.isPrivate && row.id !== viewerId) return toPublicUser({ ...row, profile: {} }, [], [])
    return toPublicUser(row, tags, achievements)
  }

  async #loadListedProfile(id: string): Promise<ListedProfile | null> {
    const found = await profileRepo.getUserWithLists(this.deps.db, id, { listed: true })
    if (!found) return null
    const { tagList, achievementList, ...row } = found
    return { row, tags: tagList.map(tagFromJson), achievements: achievementList.map(toAchievement) }
  }

  /** #40: the people search. */
  async search(callerId: string, params: SearchParams) {
    const page = params.page ?? 1
    const limit = params.limit ?? 12
    const min = params.profileCompletenessMin
    const max = params.profileCompletenessMax
    if (min !== undefined && max !== undefined && min > max)
      throw errors.field(
        '/profileCompletenessMin',
        'profileCompletenessMin must not be greater than profileCompletenessMax',
      )
    const tagKeys =
      params.tags === undefined
        ? undefined
        : [...new Set(params.tags.split(',').map(tagKey).filter(Boolean))].slice(0, 30)
    const offset = (page - 1) * limit
    // A tag list with no usable key, like a search without a word, filters nothing.
    const { total, rows } = await searchRepo.search(
      this.deps.db,
      {
        callerId,
        ...(params.role !== undefined ? { role: params.role } : {}),
        // Completeness is a whole number, so fractional bounds round inwards.
        ...(min !== undefined ? { completenessMin: Math.ceil(min) } : {}),
        ...(max !== undefined ? { completenessMax: Math.floor(max) } : {}),
        ...(tagKeys?.length ? { tagKeys } : {}),
        ...(params.owner ? { referredBy: callerId } : {}),
        ...(searchQuery(params.search) ? { tsquery: searchQuery(params.search)! } : {}),
      },
      { page, limit },
    )
    return {
      pages: Math.ceil(total / limit),
      page,
      total,
      limit,
      position: offset,
      data: rows.map((r) => toSearchUser(r, r.tagList, r.achievementList, r.bookmarkId)),
    }
  }

  /**
   * A review of `userId` was written (by the other party of a job): `score` is their new score
   * (computed from every review they received), the `review` achievement counts reviews and the
   * stars they brought, the `five-star` achievement counts five-star reviews.
   */
  async recordReview(tx: Tx, userId: string, review: { rating: number; score: number }) {
    const now = this.deps.clock.now()
    await profileRepo.setScore(tx, userId, review.score, now)
    await profileRepo.bumpAchievement(tx, userId, 'review', review.rating, now)
    if (review.rating === 5) await profileRepo.bumpAchievement(tx, userId, 'five-star', 5, now)
  }

  /**
   * The profile's `kyc` (identity verified) and `kycStatus` (the latest verification's state), as
   * the identity-verification module decides them, in its transaction.
   */
  setKyc(tx: Tx, userId: string, kyc: { kyc: boolean; kycStatus: string | null }): Promise<void> {
    return profileRepo.setKyc(tx, userId, kyc, this.deps.clock.now())
  }

  /** Notes that the account's wallets exist (they are also made lazily for older accounts). */
  markWalletGenerated(tx: Tx, userId: string): Promise<void> {
    return accountRepo.markWalletGenerated(tx, userId)
  }

  /** Locks a live account's row for the caller's transaction; 404 when there is none. */
  async lockLiveUser(tx: Tx, userId: string): Promise<void> {
    const user = await profileRepo.lockUser(tx, userId)
    if (!user) throw errors.notFound('account')
  }

  /** Gives the referrer of a new account (if any) its `referral` achievement point. */
  readonly #referral: UserCreatedHook = async (tx, user) => {
    const row = await profileRepo.referredBy(tx, user.id)
    if (row?.referredBy)
      await profileRepo.bumpAchievement(
        tx,
        row.referredBy,
        'referral',
        REFERRAL_POINTS,
        this.deps.clock.now(),
      )
  }
}
