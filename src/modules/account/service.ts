// Accounts: creation (shared by email and web3 sign-up), the profile views, profile update with
// tags and completeness, the people search and achievements.
import { randomInt } from 'node:crypto'
import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import {
  buildSearchText,
  mergeProfile,
  type ProfileUpdate,
  profileCompleteness,
  type Socials,
  type StoredProfile,
  searchQuery,
} from './profile.ts'
import {
  type AchievementJson,
  type AchievementRow,
  accountRepo,
  profileRepo,
  type TagJson,
  type UserRow,
} from './repo.ts'
import { type TagRow, tagKey, tagService, toTag } from './tags.ts'

/** Points a referrer's `referral` achievement gains per account that signs up with the code. */
export const REFERRAL_POINTS = 10

/** Called in the sign-up transaction for every new account (wallet generation hooks in here). */
export type UserCreatedHook = (tx: Tx, user: { id: string }) => Promise<void>

export interface NewUser {
  email: string | null
  firstName: string
  lastName: string
  passwordHash: string | null
  accountType: 'email' | 'web3'
  web3Address?: string | null
  referralCode?: string | null
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

/** What the account needs of file storage (set by the files module). */
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
  readonly userCreatedHooks: UserCreatedHook[] = []
  /** file storage, for profile images; set by the files module */
  files: FileLookup | undefined

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Inserts a new account with a unique generated userName and referral code. */
  async createUser(tx: Tx, input: NewUser): Promise<{ id: string; userName: string }> {
    const now = this.deps.clock.now()
    let referredBy: string | null = null
    if (input.referralCode) {
      const referrer = await accountRepo.findByReferralCode(tx, input.referralCode)
      if (!referrer) throw errors.field('/referralCode', 'Unknown referral code')
      referredBy = referrer.id
    }
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
        searchText: searchText([input.firstName, input.lastName, userName]),
        now,
      })
      // A conflict on the email is a real conflict; one on a generated value is retried.
      if (!inserted) {
        if (input.email && (await this.emailTaken(tx, input.email)))
          throw errors.conflict('This email is already registered')
        continue
      }
      for (const hook of this.userCreatedHooks) await hook(tx, { id })
      return { id, userName }
    }
    throw new Error('could not generate a unique user name')
  }

  async emailTaken(ex: Executor, email: string): Promise<boolean> {
    const row = await ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
    return !!row
  }

  async getFullUser(id: string, ex: Executor = this.deps.db) {
    const row = await accountRepo.getUser(ex, id)
    if (!row) throw errors.notFound('account')
    const imageIds = [row.bgImageId, row.profileImageId].filter((v): v is string => !!v)
    const [tags, achievements, images] = await Promise.all([
      profileRepo.tagsOf(ex, id),
      profileRepo.achievementsOf(ex, id),
      imageIds.length && this.files ? this.files.summaries(ex, imageIds) : new Map<string, object>(),
    ])
    return toFullUser(row, {
      tagsIds: tags.map(toTag),
      achievements: achievements.map(toAchievement),
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
      const newTags = update.profile?.talent?.tags
      if (newTags !== undefined) {
        tags = await tagService.ensure(tx, newTags, '/profile/talent/tags')
        const afterIds = tags.map((t) => t.id)
        await tagService.swap(tx, beforeIds, afterIds)
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
        if (!this.files) throw errors.field(`/${field}`, 'File storage is not available')
        await this.files.assertOwned(tx, userId, [fileId], { path: `/${field}`, visibility: 'public' })
      }
      const firstName = update.firstName?.trim() ?? row.firstName
      const lastName = update.lastName?.trim() ?? row.lastName
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
          isPrivate: row.isPrivate,
          profile,
          tags,
        }),
        ...(update.bgImage !== undefined ? { bgImageId: update.bgImage } : {}),
        ...(update.profileImage !== undefined ? { profileImageId: update.profileImage } : {}),
        now: this.deps.clock.now(),
      })
      return this.getFullUser(userId, tx)
    })
  }

  /** #39: another account's public form; unknown, deleted and unverified accounts are 404. */
  async getPublicUser(id: string) {
    const row = await profileRepo.getListedUser(this.deps.db, id)
    if (!row) throw errors.notFound('user')
    const [tags, achievements] = await Promise.all([
      profileRepo.tagsOf(this.deps.db, id),
      profileRepo.achievementsOf(this.deps.db, id),
    ])
    return toPublicUser(row, tags.map(toTag), achievements.map(toAchievement))
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
    const { total, rows } = await profileRepo.search(this.deps.db, {
      callerId,
      ...(params.role !== undefined ? { role: params.role } : {}),
      // Completeness is a whole number, so fractional bounds round inwards.
      ...(min !== undefined ? { completenessMin: Math.ceil(min) } : {}),
      ...(max !== undefined ? { completenessMax: Math.floor(max) } : {}),
      ...(tagKeys?.length ? { tagKeys } : {}),
      ...(params.owner ? { referredBy: callerId } : {}),
      ...(searchQuery(params.search) ? { tsquery: searchQuery(params.search)! } : {}),
      limit,
      offset,
    })
    return {
      pages: Math.ceil(total / limit),
      page,
      total,
      limit,
      position: offset,
      data: rows.map((r) => toSearchUser(r, r.tagList, r.achievementList, r.bookmarkId)),
    }
  }

  /** Gives the referrer of a new account (if any) its `referral` achievement point. */
  readonly referralHook: UserCreatedHook = async (tx, user) => {
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

export function toAchievement(a: AchievementRow | AchievementJson) {
  return {
    _id: a.id,
    owner: a.owner,
    type: a.type,
    total: a.total,
    value: a.value,
    createdAt: new Date(a.createdAt),
    updatedAt: new Date(a.updatedAt),
    __v: a.version,
  }
}

function tagFromJson(t: TagJson) {
  return toTag({ ...t, createdAt: new Date(t.createdAt), updatedAt: new Date(t.updatedAt) })
}

type PublicRow = Pick<
  UserRow,
  | 'id'
  | 'firstName'
  | 'lastName'
  | 'role'
  | 'type'
  | 'profile'
  | 'verified'
  | 'isPrivate'
  | 'score'
  | 'profileCompleteness'
  | 'socketStatus'
  | 'kyc'
  | 'kycStatus'
>

/** The public form of SPEC.md: no email, contact, bio or about. */
export function toPublicUser(
  row: PublicRow,
  tagsIds: ReturnType<typeof toTag>[],
  achievements: ReturnType<typeof toAchievement>[],
) {
  const talent = ((row.profile ?? {}) as StoredProfile).talent ?? {}
  return {
    _id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    type: row.type,
    profile: {
      talent: {
        ...(talent.availability ? { availability: talent.availability } : {}),
        tags: tagsIds.map((t) => t.name),
        tagsIds,
      },
      verified: row.verified,
    },
    isPrivate: row.isPrivate,
    score: row.score,
    profileCompleteness: row.profileCompleteness,
    socket: { status: row.socketStatus },
    achievements,
    kyc: row.kyc,
    kycStatus: row.kycStatus,
  }
}

/** The search form: the public form plus contact, bio and about (empty for a private profile). */
export function toSearchUser(
  row: PublicRow & Pick<UserRow, 'createdAt' | 'updatedAt'>,
  tags: TagJson[],
  achievements: AchievementJson[],
  bookmarkId: string | null,
) {
  const pub = toPublicUser(row, tags.map(tagFromJson), achievements.map(toAchievement))
  const profile = (row.profile ?? {}) as StoredProfile
  const open = !row.isPrivate
  return {
    ...pub,
    profile: {
      contact: open ? (profile.contact ?? {}) : {},
      bio: open ? (profile.bio ?? {}) : {},
      talent: {
        ...pub.profile.talent,
        ...(open && profile.talent?.about ? { about: profile.talent.about } : {}),
      },
      verified: row.verified,
    },
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    isBookmarked: !!bookmarkId,
    bookmarkId: bookmarkId ?? '',
  }
}

/** The full User form of SPEC.md. Objects are present (empty) where nothing is set. */
export function toFullUser(
  row: UserRow,
  extras: { tagsIds?: unknown[]; achievements?: unknown[]; bgImage?: object; profileImage?: object } = {},
) {
  const profile = row.profile ?? {}
  const talent = profile.talent ?? {}
  return {
    _id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email ?? '',
    status: row.status,
    emailVerified: row.emailVerified,
    emailVerifiedAt: row.emailVerifiedAt,
    role: row.role,
    type: row.type,
    profile: {
      contact: profile.contact ?? {},
      bio: profile.bio ?? {},
      talent: { ...talent, tags: talent.tags ?? [], tagsIds: extras.tagsIds ?? [] },
      verified: row.verified,
    },
    isPrivate: row.isPrivate,
    walletGenerated: row.walletGenerated,
    score: row.score,
    twoFa: { type: row.twoFaType, status: row.twoFaEnabled, securityQuestion: row.securityQuestion },
    profileCompleteness: row.profileCompleteness,
    socket: { status: row.socketStatus },
    loggedInAt: row.loggedInAt,
    isUserNameUpdated: row.isUserNameUpdated,
    referralCode: row.referralCode,
    userName: row.userName,
    web3Onboard: row.web3Onboard,
    accountType: row.accountType,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    bgImage: extras.bgImage ?? {},
    profileImage: extras.profileImage ?? {},
    meta: row.meta ?? { pointScore: 0 },
    socials: row.socials ?? {},
    achievements: extras.achievements ?? [],
    isVerified: row.emailVerified,
    kyc: row.kyc,
    kycStatus: row.kycStatus,
    __v: row.version,
  }
}
