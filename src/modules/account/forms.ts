// The API's User forms built from rows: the full form (#36, #37, #5), the public form (#39)
// and the search form (#40), with their tags and achievements.
import type { StoredProfile } from './profile.ts'
import type { AchievementJson, AchievementRow, TagJson, UserRow } from './repo.ts'
import type { UserSummaryJson } from './summary-sql.ts'
import { toTag } from './tags.ts'

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

export function tagFromJson(t: TagJson) {
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

/**
 * A user as other people see them at a glance, with the `talent` the form shows: the head of the
 * public User form, and the user summary other records carry (a collection's creator, a bookmark).
 */
export function userSummaryForm<T>(
  row: Pick<
    UserSummaryJson,
    | 'id'
    | 'firstName'
    | 'lastName'
    | 'role'
    | 'type'
    | 'verified'
    | 'isPrivate'
    | 'score'
    | 'profileCompleteness'
    | 'socketStatus'
  >,
  talent: T,
) {
  return {
    _id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    type: row.type,
    profile: { talent, verified: row.verified },
    isPrivate: row.isPrivate,
    score: row.score,
    profileCompleteness: row.profileCompleteness,
    socket: { status: row.socketStatus },
  }
}

/** The public User form: no email, contact, bio or about. */
export function toPublicUser(
  row: PublicRow,
  tagsIds: ReturnType<typeof toTag>[],
  achievements: ReturnType<typeof toAchievement>[],
) {
  const talent = ((row.profile ?? {}) as StoredProfile).talent ?? {}
  return {
    ...userSummaryForm(row, {
      ...(talent.availability ? { availability: talent.availability } : {}),
      tags: tagsIds.map((t) => t.name),
      tagsIds,
    }),
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

/** The full User form. Objects are present (empty) where nothing is set. */
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
