// Example records of the account contract (the OpenAPI document's examples of the User forms).
import { EX } from '../../http/examples.ts'

export const TAG = {
  _id: EX.tagId,
  name: 'Design',
  key: 'design',
  color: '#ec4899',
  description: 'Product, interface, brand and motion design',
  icon: 'palette',
  categories: [],
  isParent: true,
  type: '',
  entryCount: 1,
  createdAt: EX.created,
  updatedAt: EX.updated,
  __v: 0,
}
export const CHILD_TAG = {
  _id: EX.childTagId,
  name: 'typescript',
  key: 'typescript',
  color: '#c67d39',
  categories: [EX.categoryId],
  isParent: false,
  type: 'tags',
  entryCount: 1,
  createdAt: EX.created,
  updatedAt: EX.updated,
  __v: 0,
}

/** The example account's whole profile, as its owner and the people search see it. */
export const PROFILE = {
  contact: { country: 'GB', phone: '+442079460000' },
  bio: { title: 'Engineer' },
  talent: {
    tags: ['typescript', 'Design'],
    tagsIds: [CHILD_TAG, TAG],
    about: 'Analytical engines',
    availability: 'available',
  },
  verified: false,
}

/** The full form of the example account (Ada). */
export const USER = {
  _id: EX.userId,
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: EX.email,
  status: true,
  emailVerified: true,
  emailVerifiedAt: EX.created,
  role: 'user',
  type: 'recipient',
  profile: PROFILE,
  isPrivate: false,
  walletGenerated: true,
  score: 0,
  twoFa: { type: '', status: false, securityQuestion: '' },
  profileCompleteness: 50,
  socket: { status: 'OFFLINE' },
  loggedInAt: EX.updated,
  isUserNameUpdated: false,
  referralCode: 'CBJCKTYN',
  userName: 'adalovelace5759',
  web3Onboard: false,
  accountType: 'email',
  createdAt: EX.created,
  updatedAt: EX.updated,
  bgImage: {},
  profileImage: {},
  meta: { pointScore: 0 },
  socials: { github: 'https://github.com/ada' },
  achievements: [],
  isVerified: true,
  kyc: false,
  kycStatus: null,
  __v: 2,
}

export const PUBLIC_USER = {
  _id: EX.userId,
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'user',
  type: 'recipient',
  isPrivate: false,
  score: 0,
  profileCompleteness: 50,
  socket: { status: 'OFFLINE' },
  achievements: [],
  kyc: false,
  kycStatus: null,
}
