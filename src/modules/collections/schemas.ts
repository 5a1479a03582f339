// The collections contract: the Collection forms of the API (the full form and the older update
// shape), bookmarks, and the request bodies and queries of #26–#30 and /v1/bookmark.
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'
import { FileSummary } from '../files/schemas.ts'
import { MONEY_MAX, MONEY_PATTERN } from './payment-fee.ts'
import {
  CHILD_COLLECTION,
  COLLECTION,
  COLLECTION_LIST_ITEM,
  COLLECTION_TAG,
  COLLECTION_UPDATE,
  USER_SUMMARY,
} from './schema-examples.ts'

/** Text without NUL characters (PostgreSQL text cannot hold them). */
const Text = (maxLength: number, opts: Record<string, unknown> = {}) =>
  Str(maxLength, { pattern: '^[^\\u0000]*$', ...opts })

/** The price in USD: a decimal string (the API contract) or a JSON number (the public SDK). */
const PaymentFee = Type.Union(
  [
    Type.String({ pattern: MONEY_PATTERN, description: 'decimal string, e.g. `150.50`' }),
    Type.Number({ minimum: 0, maximum: MONEY_MAX, description: 'JSON number, e.g. `150.5`' }),
  ],
  {
    description:
      'price in USD, 0 or more with at most two decimals, as a decimal string or a JSON number (a number that is not exactly a cent amount is refused)',
  },
)
const DeliveryDate = Type.String({ format: 'date', description: '`YYYY-MM-DD`, today or later (UTC)' })
const CollectionType = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '^[A-Za-z0-9][A-Za-z0-9 _-]*$',
  description: 'e.g. `job`',
})
const TagNames = Type.Array(Text(50), { maxItems: 30, description: 'tag names; at most 30' })

const PAYMENT_WEB_HOOK =
  'called with signed JSON when this collection’s payment moves (escrow.funded, escrow.released): an https URL on the public internet (in development and tests also http://localhost); see docs/webhooks.md'
const PaymentWebHook = Type.String({ minLength: 1, maxLength: 2048, description: PAYMENT_WEB_HOOK })

const Attachments = Type.Array(Id(), {
  maxItems: 20,
  description:
    'ids of your own uploaded files (#31, #32), at most 20; shown as file summaries in `attachmentData`',
})

export const CreateCollectionBody = Type.Object(
  {
    type: CollectionType,
    name: Text(200, { minLength: 1 }),
    category: Type.Optional(Text(100)),
    description: Text(10_000, { minLength: 1 }),
    paymentFee: Type.Optional(PaymentFee),
    isPrivate: Type.Optional(Type.Boolean()),
    deliveryDate: Type.Optional(DeliveryDate),
    tags: Type.Optional(TagNames),
    isParentFunded: Type.Optional(Type.Boolean()),
    meta: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'free-form object, at most 4 KiB as JSON' }),
    ),
    parent: Type.Optional(Id('id of the parent collection (one of the caller’s own top-level ones)')),
    attachments: Type.Optional(Attachments),
    paymentWebHook: Type.Optional(PaymentWebHook),
  },
  {
    additionalProperties: false,
    examples: [
      {
        type: 'job',
        name: 'Landing page',
        description: 'One responsive page with a contact form',
        paymentFee: '150.00',
        deliveryDate: '2031-01-01',
        tags: ['design'],
      },
    ],
  },
)
export type CreateCollectionInput = Static<typeof CreateCollectionBody>

/** The statuses the client SDK sends (ICollectionStatus). */
export const CollectionStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('waiting'),
    Type.Literal('ongoing'),
    Type.Literal('completed'),
    Type.Literal('cancelled'),
    Type.Literal('deleted'),
  ],
  {
    description:
      'the status asked for: `completed` (the creator completes a delivered job; the talent delivers it), `cancelled` (the creator cancels, with `cancellationReason`), `ongoing` (the creator asks for changes to a delivery); for a deliverable, its talent sets `pending`, `ongoing` or `completed`',
  },
)

const updateFields = {
  type: Type.Optional(CollectionType),
  name: Type.Optional(Text(200, { minLength: 1 })),
  category: Type.Optional(Text(100)),
  description: Type.Optional(Text(10_000, { minLength: 1 })),
  paymentFee: Type.Optional(PaymentFee),
  isPrivate: Type.Optional(Type.Boolean()),
  deliveryDate: Type.Optional(DeliveryDate),
  tags: Type.Optional(TagNames),
  attachments: Type.Optional(Attachments),
  status: Type.Optional(CollectionStatus),
  progress: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'the talent’s progress, 0–100 (deliverables, or a job without any)',
    }),
  ),
  cancellationReason: Type.Optional(
    Text(2000, { minLength: 1, description: 'required with status `cancelled`' }),
  ),
}

export const UpdateCollectionBody = Type.Object(
  {
    ...updateFields,
    paymentWebHook: Type.Optional(
      Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], {
        description: `${PAYMENT_WEB_HOOK}. \`null\` or \`""\` removes it. Changes even after the escrow is paid.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [{ name: 'Landing page v2' }],
  },
)
export type UpdateCollectionBodyT = Static<typeof UpdateCollectionBody>
/** The details of #29 (what the creator edits), without the work fields and the webhook. */
export type UpdateCollectionInput = Omit<
  UpdateCollectionBodyT,
  'status' | 'progress' | 'cancellationReason' | 'paymentWebHook'
>

const ManyItem = Type.Object(
  { id: Id('the collection to update'), ...updateFields },
  { additionalProperties: false, minProperties: 2 },
)
const ManyItems = Type.Array(ManyItem, { minItems: 1, maxItems: 50, description: 'at most 50 collections' })

/**
 * The bulk update: `{ collections: [...] }`, or `{ collections: { collections: [...] } }` as the
 * client SDK's updateManyCollections wraps its argument.
 */
export const UpdateManyCollectionsBody = Type.Object(
  {
    collections: Type.Union([
      ManyItems,
      Type.Object({ collections: ManyItems }, { additionalProperties: false }),
    ]),
  },
  {
    additionalProperties: false,
    examples: [{ collections: [{ id: EX.childCollectionId, status: 'ongoing', progress: 40 }] }],
  },
)
export type UpdateManyItem = Static<typeof ManyItem>

const Bool = (description: string) => Type.Optional(Type.Boolean({ description }))

export const ListCollectionsQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Text(40)),
    status: Type.Optional(Text(40)),
    creator: Bool('include the creator summary (default true); false gives the creator id instead'),
    receiver: Bool('include `receiver` (the escrow receiver summary, or null)'),
    creatorId: Type.Optional(Id('only collections created by this user')),
    isPrivate: Bool('private or public collections only'),
    price: Type.Optional(
      Type.String({
        maxLength: 40,
        description: '`min-max` over paymentFee in USD; either side may be empty: `100-`, `-500`, `100-500`',
      }),
    ),
    search: Type.Optional(
      Text(200, { description: 'words matched case-insensitively by prefix in name, description and tags' }),
    ),
    tags: Type.Optional(
      Text(1000, {
        description: 'comma-separated tag keys (or names); a collection with any of them matches',
      }),
    ),
    'meta.name': Type.Optional(Text(200)),
    escrowPaid: Bool('collections whose escrow is (or is not) paid'),
    parent: Type.Optional(Id('children of this collection')),
  },
  { additionalProperties: false },
)
export type ListCollectionsQueryT = Static<typeof ListCollectionsQuery>

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
