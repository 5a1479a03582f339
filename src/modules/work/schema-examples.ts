// Example records of the work contract (the OpenAPI document's examples): Ada (the creator) hires
// Grace for the landing page of the collections examples, pays it, and they review each other.
import { EX } from '../../http/examples.ts'
import { USER_SUMMARY } from '../collections/types.ts'

export const INVITE_ID = '6b0483c0bce238a5cbe00a80'
export const APPLICATION_ID = '6b0483c1bce238a5cbe00a81'
export const REVIEW_ID = '6b0483c2bce238a5cbe00a82'
export const DISPUTE_ID = '6b0483c3bce238a5cbe00a83'

const GRACE = { ...USER_SUMMARY, _id: EX.otherUserId, firstName: 'Grace', lastName: 'Hopper' }

export const COLLECTION_REF = {
  _id: EX.collectionId,
  name: 'Landing page',
  description: 'One responsive page with a contact form',
  type: 'job',
  category: '',
  status: 'pending',
  paymentFee: 150,
  isPrivate: true,
  deliveryDate: '2031-01-01T00:00:00.000Z',
  creator: EX.userId,
  owners: [],
  parent: null,
  escrowPaid: false,
  isDeleted: false,
}

export const INVITE = {
  _id: INVITE_ID,
  sender: USER_SUMMARY,
  receiver: GRACE,
  data: COLLECTION_REF,
  message: 'Would you build this page?',
  description: 'Ada Lovelace invited you to “Landing page”',
  status: 'pending',
  emailToken: '',
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const APPLICATION = {
  _id: APPLICATION_ID,
  applicant: GRACE,
  data: { ...COLLECTION_REF, isPrivate: false },
  message: 'I built three pages like it last month.',
  amount: 140,
  status: 'pending',
  decidedAt: null,
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const REVIEW = {
  _id: REVIEW_ID,
  data: { ...COLLECTION_REF, status: 'completed', owners: [EX.otherUserId], escrowPaid: true },
  owner: USER_SUMMARY,
  receiver: GRACE,
  type: 'talent',
  review: 'Fast, careful work.',
  rating: 5,
  createdAt: EX.later,
  updatedAt: EX.later,
}

export const DISPUTE = {
  _id: DISPUTE_ID,
  collection: EX.collectionId,
  escrowId: EX.escrowId,
  raisedBy: EX.otherUserId,
  reason: 'The delivery was accepted by mail but not completed here.',
  evidence: [],
  evidenceData: [],
  status: 'open',
  escrowAmount: 150,
  proposal: { proposedBy: EX.userId, creatorAmount: 50, ownerAmount: 100, proposedAt: EX.later },
  resolution: null,
  creatorAmount: null,
  ownerAmount: null,
  decidedBy: null,
  note: '',
  resolvedAt: null,
  paidAt: null,
  createdAt: EX.updated,
  updatedAt: EX.later,
}
