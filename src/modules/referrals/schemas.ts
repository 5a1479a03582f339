// Referrals: the SDK's ValidateReferralDto, the referrer's list and stats, and invitations.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Email, NullableTimestamp, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'

export const ValidateReferralBody = Type.Object(
  { token: Str(32, { minLength: 1, pattern: '\\S', description: 'the referral code (any case)' }) },
  { additionalProperties: false, examples: [{ token: 'K7QX2MPA' }] },
)

export const ValidateReferral = Type.Object(
  {
    valid: Type.Boolean({ description: 'whether a new account may still sign up with it' }),
    userId: Type.String({ description: 'the referrer' }),
    referralCounts: Type.Integer({ description: 'accounts that signed up with it so far' }),
    totalAllowedReferrals: Type.Integer({ description: 'how many may (REFERRAL_LIMIT)' }),
    referralId: Type.String({ description: 'the code as stored' }),
    role: Type.String({ description: 'the referrer’s role' }),
    isKyc: Type.Boolean({ description: 'whether the referrer passed identity checks' }),
  },
  {
    $id: 'ValidateReferral',
    examples: [
      {
        valid: true,
        userId: EX.userId,
        referralCounts: 3,
        totalAllowedReferrals: 100,
        referralId: 'K7QX2MPA',
        role: 'user',
        isKyc: false,
      },
    ],
  },
)

const referredExample = {
  _id: EX.otherUserId,
  firstName: 'Grace',
  lastName: 'Hopper',
  userName: 'gracehopper4821',
  type: 'talent',
  isVerified: true,
  completedJob: true,
  firstJob: EX.collectionId,
  firstJobCompletedAt: EX.later,
  createdAt: EX.created,
}

export const ReferredUser = Type.Object(
  {
    _id: Type.String({ description: 'the referred account' }),
    firstName: Type.String(),
    lastName: Type.String(),
    userName: Type.String(),
    type: Type.String({ description: 'the account type' }),
    isVerified: Type.Boolean({ description: 'the account verified its email' }),
    completedJob: Type.Boolean({ description: 'it completed a job (as creator or talent)' }),
    firstJob: Type.Union([Type.String(), Type.Null()], {
      description: 'the collection of its first completed job',
    }),
    firstJobCompletedAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  {
    $id: 'ReferredUser',
    description: 'An account that signed up with the caller’s code.',
    examples: [referredExample],
  },
)

export const ReferredPage = Type.Object(
  {
    data: Type.Array(ReferredUser),
    total: Type.Integer(),
    pages: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
  },
  { $id: 'ReferredPage', examples: [{ data: [referredExample], total: 1, pages: 1, page: 1, limit: 12 }] },
)

export const ReferralListQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false })

export const ReferralStats = Type.Object(
  {
    referralCode: Type.String({ description: 'the caller’s code' }),
    totalReferrals: Type.Integer({ description: 'accounts that signed up with it (deleted ones too)' }),
    verifiedReferrals: Type.Integer({ description: 'of those, live accounts that verified their email' }),
    completedJobReferrals: Type.Integer({ description: 'of those, accounts that completed a job' }),
    totalAllowedReferrals: Type.Integer({ description: 'how many may sign up with it (REFERRAL_LIMIT)' }),
    remainingReferrals: Type.Integer(),
    invitesSent: Type.Integer({ description: 'addresses the caller invited by e-mail' }),
    points: Type.Integer({ description: 'the value of the caller’s `referral` achievement' }),
  },
  {
    $id: 'ReferralStats',
    examples: [
      {
        referralCode: 'K7QX2MPA',
        totalReferrals: 3,
        verifiedReferrals: 2,
        completedJobReferrals: 1,
        totalAllowedReferrals: 100,
        remainingReferrals: 97,
        invitesSent: 5,
        points: 30,
      },
    ],
  },
)

export const InviteBody = Type.Object(
  {
    emails: Type.Array(Email, { minItems: 1, maxItems: 10, description: '1 to 10 addresses' }),
  },
  { additionalProperties: false, examples: [{ emails: ['grace@example.com'] }] },
)

export const InviteResult = Type.Object(
  {
    emails: Type.Array(Type.String(), { description: 'the addresses, lower-cased, without repeats' }),
    referralCode: Type.String({ description: 'the code the mail carries' }),
  },
  { $id: 'ReferralInviteResult', examples: [{ emails: ['grace@example.com'], referralCode: 'K7QX2MPA' }] },
)
