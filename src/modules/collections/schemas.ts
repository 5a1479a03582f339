// The collections contract's answers: the Collection forms of the API (the full form, a child
// inside its parent, a list item and page, and the older update shape), and the user and tag
// summaries that bookmarks show too. The requests are in input-schemas.ts.
import { Type } from 'typebox'
import { Timestamp } from '../../http/schemas.ts'
import { FileSummary } from '../files/types.ts'
import {
  CHILD_COLLECTION,
  COLLECTION,
  COLLECTION_LIST_ITEM,
  COLLECTION_TAG,
  COLLECTION_UPDATE,
  USER_SUMMARY,
} from './schema-examples.ts'

const Profile = Type.Object({
  talent: Type.Object({
    tags: Type.Array(Type.String()),
    availability: Type.Optional(Type.String()),
  }),
  verified: Type.Boolean(),
})

export const UserSummary = Type.Object(
  {
    _id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    role: Type.String(),
    type: Type.String(),
    profile: Profile,
    isPrivate: Type.Boolean(),
    score: Type.Number(),
    profileCompleteness: Type.Number(),
    socket: Type.Object({ status: Type.String() }),
  },
  {
    $id: 'UserSummary',
    description: 'Who a user is, as collections and bookmarks show it.',
    examples: [USER_SUMMARY],
  },
)

export const CollectionTag = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    key: Type.String(),
    color: Type.String(),
    type: Type.String(),
  },
  { $id: 'CollectionTag', examples: [COLLECTION_TAG] },
)

export const StrArray = Type.Array(Type.String())

const Delivery = Type.Object({
  note: Type.String(),
  attachments: StrArray,
  attachmentData: Type.Array(FileSummary, {
    description: 'summaries of the delivered files that still exist',
  }),
  deliveredAt: Timestamp,
  autoCompleteAt: Type.String({
    format: 'date-time',
    description:
      'when the job completes by itself (its escrow released to the talent) unless the creator completes it, asks for changes or a dispute is raised first: deliveredAt + inspectionPeriodDays',
  }),
})

const EscrowReleased = Type.Object(
  {
    creatorReleased: Type.Boolean({ description: 'the creator’s share was sent back to their wallet' }),
    creatorAmount: Type.Number({ description: 'USD of the escrowed price returned to the creator' }),
    ownerReleased: Type.Boolean({ description: 'the talent’s share was released' }),
    ownerAmount: Type.Number({ description: 'USD of the escrowed price released to the talent' }),
  },
  { description: 'how the escrow was split when a dispute ended' },
)

/** Every field of the full form except `creator` and `collections`, which differ by operation. */
export const fullFields = {
  _id: Type.String(),
  name: Type.String(),
  category: Type.String(),
  description: Type.String(),
  type: Type.String(),
  equity: Type.String(),
  owners: Type.Array(Type.String(), { description: 'the assigned talent (one id), empty while nobody is' }),
  invites: Type.Array(Type.String(), { description: 'ids of the invites sent for the job (/v1/invite)' }),
  applications: Type.Array(Type.String(), { description: 'ids of the applications to the job' }),
  attachments: StrArray,
  attachmentData: Type.Array(FileSummary, {
    description: 'summaries of the attached files that still exist',
  }),
  ratings: Type.Array(Type.String(), {
    description: 'ids of the reviews written about the job (/v1/reviews)',
  }),
  payoutTransactions: StrArray,
  tagsData: StrArray,
  tags: Type.Array(CollectionTag),
  status: Type.String(),
  inviteAccepted: Type.Boolean(),
  payoutStatus: Type.String(),
  feePayoutStatus: Type.String(),
  platformFeePayoutStatus: Type.String(),
  paymentFee: Type.Number({ description: 'USD' }),
  isPrivate: Type.Boolean(),
  deliveryDate: Type.Union([Timestamp, Type.Null()]),
  recipientCompletedJob: Type.Boolean({ description: 'the talent delivered the job' }),
  delivery: Type.Union([Delivery, Type.Null()], { description: 'the talent’s delivery; null before it' }),
  inspectionPeriodDays: Type.Integer({
    description: 'days a delivery waits for the creator before the job completes by itself (default 14)',
  }),
  completedDate: Type.Union([Timestamp, Type.Null()], { description: 'when the creator completed the job' }),
  cancellationReason: Type.String({ description: 'the creator’s reason, once cancelled; empty otherwise' }),
  issue: Type.String({ description: 'the reason of the dispute raised on the job; empty otherwise' }),
  escrowReleased: Type.Optional(EscrowReleased),
  score: Type.Number({
    description: 'average rating of the job’s reviews × 20, rounded (0 without reviews)',
  }),
  progress: Type.Number({ description: '0–100; the average of its deliverables’ progress when it has any' }),
  isDeleted: Type.Boolean(),
  isFundingRequest: Type.Boolean(),
  failedPayoutCount: Type.Number(),
  failedFeePayoutCount: Type.Number(),
  failedPlatformFeePayoutCount: Type.Number(),
  isParentFunded: Type.Boolean(),
  totalChildCollectionsCount: Type.Number(),
  totalChildCollectionEscrowCount: Type.Number(),
  parent: Type.Union([Type.String(), Type.Null()], { description: 'id of the parent collection' }),
  escrowPaid: Type.Boolean(),
  meta: Type.Object({}, { additionalProperties: true }),
  paymentWebHook: Type.Optional(
    Type.String({ description: 'the collection’s webhook URL; shown to its creator only, when set' }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  __v: Type.Number(),
}

const PaymentWebHookSecret = Type.Optional(
  Type.String({
    description:
      'the signing secret of the collection’s webhook, in the answer that first set `paymentWebHook` only (a new one: POST /v1/webhooks/{id}/rotate)',
  }),
)

/** A child collection inside its parent's `collections` (its own `collections` are ids). */
export const ChildCollection = Type.Object(
  {
    ...fullFields,
    creator: UserSummary,
    collections: StrArray,
  },
  {
    $id: 'ChildCollection',
    description: 'A child collection inside its parent: its own `collections` are ids.',
    examples: [CHILD_COLLECTION],
  },
)

/** The full form (#26, #30): `collections` holds the child collections. */
export const Collection = Type.Object(
  {
    ...fullFields,
    creator: UserSummary,
    collections: Type.Array(ChildCollection),
    paymentWebHookSecret: PaymentWebHookSecret,
  },
  {
    $id: 'Collection',
    description: 'A job or funding request, with its child collections. `paymentFee` is the price in USD.',
    examples: [COLLECTION],
  },
)

/** A list item (#27): `collections` holds child ids; `creator` is the summary or, with creator=false, the id. */
export const CollectionListItem = Type.Object(
  {
    ...fullFields,
    creator: Type.Union([UserSummary, Type.String()]),
    receiver: Type.Optional(Type.Union([UserSummary, Type.Null()])),
    collections: StrArray,
    isBookmarked: Type.Boolean(),
    bookmarkId: Type.String({ description: 'empty when not bookmarked' }),
  },
  {
    $id: 'CollectionListItem',
    description: 'A collection in a list: child ids, and whether the caller bookmarked it.',
    examples: [COLLECTION_LIST_ITEM],
  },
)

export const CollectionPage = Type.Object(
  {
    data: Type.Array(CollectionListItem),
    total: Type.Integer({ examples: [1] }),
    pages: Type.Integer({ examples: [1] }),
    page: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
  },
  { $id: 'CollectionPage' },
)

/** The older shape answered by the update (#29). */
export const CollectionUpdateShape = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    category: Type.String(),
    description: Type.String(),
    equity: Type.String(),
    collections: StrArray,
    type: Type.String(),
    owners: StrArray,
    invites: StrArray,
    applications: StrArray,
    skillData: StrArray,
    skills: StrArray,
    status: Type.String(),
    inviteAccepted: Type.Boolean(),
    payoutStatus: Type.String(),
    paymentStatus: Type.String(),
    feePayoutStatus: Type.String(),
    balanceStatus: Type.String(),
    paymentFee: Type.String({ description: 'USD, two decimals' }),
    isPrivate: Type.Boolean(),
    deliveryDate: Type.Union([Timestamp, Type.Null()]),
    recipientCompletedJob: Type.Boolean(),
    score: Type.Number(),
    progress: Type.Number(),
    isDeleted: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    slug: Type.String(),
    __v: Type.Number(),
    paymentWebHook: Type.Optional(
      Type.String({ description: 'the collection’s webhook URL (the caller is its creator), when set' }),
    ),
    paymentWebHookSecret: PaymentWebHookSecret,
  },
  {
    $id: 'CollectionUpdate',
    description: 'The older shape the update (#29) answers; `paymentFee` is a USD string with two decimals.',
    examples: [COLLECTION_UPDATE],
  },
)
