// The account contract: the User forms of SPEC.md and the account endpoints' bodies.
import { Type } from 'typebox'
import { Id, NullableTimestamp, Timestamp } from '../../http/schemas.ts'

export const Tag = Type.Object({
  _id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  color: Type.String(),
  description: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  categories: Type.Array(Type.String()),
  isParent: Type.Boolean(),
  type: Type.String(),
  entryCount: Type.Number(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: Type.Number(),
})

export const FileSummary = Type.Object({
  _id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  size: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
})

export const Achievement = Type.Object({
  _id: Type.String(),
  owner: Type.String(),
  type: Type.String(),
  total: Type.String(),
  value: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: Type.Number(),
})

const Contact = Type.Object({
  country: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  address: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
})
const Bio = Type.Object({ title: Type.Optional(Type.String()), description: Type.Optional(Type.String()) })
const Talent = Type.Object({
  about: Type.Optional(Type.String()),
  availability: Type.Optional(Type.String()),
  tags: Type.Array(Type.String()),
  tagsIds: Type.Array(Tag),
})
const Socials = Type.Object({
  github: Type.Optional(Type.String()),
  twitter: Type.Optional(Type.String()),
  linkedin: Type.Optional(Type.String()),
  website: Type.Optional(Type.String()),
})

export const FullUser = Type.Object({
  _id: Id(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
  status: Type.Boolean(),
  emailVerified: Type.Boolean(),
  emailVerifiedAt: NullableTimestamp,
  role: Type.String(),
  type: Type.String(),
  profile: Type.Object({ contact: Contact, bio: Bio, talent: Talent, verified: Type.Boolean() }),
  isPrivate: Type.Boolean(),
  walletGenerated: Type.Boolean(),
  score: Type.Number(),
  twoFa: Type.Object({ type: Type.String(), status: Type.Boolean(), securityQuestion: Type.String() }),
  profileCompleteness: Type.Number(),
  socket: Type.Object({ status: Type.String() }),
  loggedInAt: NullableTimestamp,
  isUserNameUpdated: Type.Boolean(),
  referralCode: Type.String(),
  userName: Type.String(),
  web3Onboard: Type.Boolean(),
  accountType: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  bgImage: FileSummary,
  profileImage: FileSummary,
  meta: Type.Object({ pointScore: Type.Number() }, { additionalProperties: true }),
  socials: Socials,
  achievements: Type.Array(Achievement),
  isVerified: Type.Boolean(),
  kyc: Type.Boolean(),
  kycStatus: Type.Union([Type.String(), Type.Null()]),
  __v: Type.Number(),
})
