// Example records of the collections contract (the OpenAPI document's examples).
import { EX } from '../../http/examples.ts'

export const USER_SUMMARY = {
  _id: EX.userId,
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'user',
  type: 'recipient',
  profile: { talent: { tags: ['typescript', 'Design'], availability: 'available' }, verified: false },
  isPrivate: false,
  score: 0,
  profileCompleteness: 50,
  socket: { status: 'OFFLINE' },
}

export const COLLECTION_TAG = { _id: EX.tagId, name: 'Design', key: 'design', color: '#ec4899', type: '' }

/** The fields every form of the example collection shares. */
const FIELDS = {
  _id: EX.collectionId,
  name: 'Landing page',
  category: '',
  description: 'One responsive page with a contact form',
  type: 'job',
  equity: '',
  owners: [],
  invites: [],
  attachments: [],
  attachmentData: [],
  ratings: [],
  payoutTransactions: [],
  tagsData: ['design'],
  tags: [COLLECTION_TAG],
  status: 'pending',
  inviteAccepted: false,
  payoutStatus: 'awaiting',
  feePayoutStatus: 'awaiting',
  platformFeePayoutStatus: 'awaiting',
  paymentFee: 150,
  isPrivate: false,
  deliveryDate: '2031-01-01T00:00:00.000Z',
  recipientCompletedJob: false,
  score: 0,
  progress: 0,
  isDeleted: false,
  isFundingRequest: false,
  failedPayoutCount: 0,
  failedFeePayoutCount: 0,
  failedPlatformFeePayoutCount: 0,
  isParentFunded: false,
  totalChildCollectionsCount: 0,
  totalChildCollectionEscrowCount: 0,
  parent: null,
  escrowPaid: false,
  meta: {},
  applications: [],
  delivery: null,
  inspectionPeriodDays: 14,
  completedDate: null,
  cancellationReason: '',
  issue: '',
  createdAt: EX.created,
  updatedAt: EX.created,
  __v: 0,
  creator: USER_SUMMARY,
}

export const CHILD_COLLECTION = {
  ...FIELDS,
  _id: EX.childCollectionId,
  name: 'Landing page copy',
  description: 'The texts of the landing page',
  paymentFee: 40,
  parent: EX.collectionId,
  collections: [],
}

export const COLLECTION = { ...FIELDS, totalChildCollectionsCount: 1, collections: [CHILD_COLLECTION] }

export const COLLECTION_LIST_ITEM = {
  ...FIELDS,
  totalChildCollectionsCount: 1,
  collections: [EX.childCollectionId],
  isBookmarked: true,
  bookmarkId: EX.bookmarkId,
}

export const COLLECTION_UPDATE = {
  _id: EX.collectionId,
  name: 'Landing page v2',
  category: '',
  description: 'One responsive page with a contact form',
  equity: '',
  collections: [],
  type: 'job',
  owners: [],
  invites: [],
  applications: [],
  skillData: ['Design'],
  skills: [EX.tagId],
  status: 'pending',
  inviteAccepted: false,
  payoutStatus: 'awaiting',
  paymentStatus: 'awaiting',
  feePayoutStatus: 'awaiting',
  balanceStatus: 'awaiting',
  paymentFee: '150.00',
  isPrivate: false,
  deliveryDate: '2031-01-01T00:00:00.000Z',
  recipientCompletedJob: false,
  score: 0,
  progress: 0,
  isDeleted: false,
  createdAt: EX.created,
  updatedAt: EX.updated,
  slug: 'landing-page-v2-e00a4f',
  __v: 1,
}

export const BOOKMARK = {
  _id: EX.bookmarkId,
  owner: EX.otherUserId,
  type: 'collection',
  reference: EX.collectionId,
  createdAt: EX.updated,
  updatedAt: EX.updated,
  __v: 0,
}

export const BOOKMARK_ITEM = { ...BOOKMARK, collection: { ...FIELDS, collections: [] } }
