// The work contract: invites (the client SDK's IInviteDto), applications, delivery, cancellation,
// reviews (IReviewDto) and disputes, with their request bodies and list queries.
import { type Static, Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Str, Timestamp } from '../../http/schemas.ts'
import { CreateCollectionBody, UserSummary } from '../collections/types.ts'
import { FileSummary } from '../files/types.ts'
import { APPLICATION, COLLECTION_REF, DISPUTE, INVITE, REVIEW } from './schema-examples.ts'

/** Text without NUL characters (PostgreSQL text cannot hold them). */
export const Text = (maxLength: number, opts: Record<string, unknown> = {}) =>
  Str(maxLength, { pattern: '^[^\\u0000]*$', ...opts })

/** USD as a JSON number or a decimal string, at most two decimals. */
export const Usd = (description: string) =>
  Type.Union(
    [
      Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,2})?$' }),
      Type.Number({ minimum: 0, maximum: 999_999_999_999.99 }),
    ],
    { description: `${description}; USD with at most two decimals, a JSON number or a decimal string` },
  )

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T, description?: string) =>
  Type.Union([t, Type.Null()], description ? { description } : {})

/** The collection as an invite, application or review embeds it (`data`). */
export const CollectionRef = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    type: Type.String(),
    category: Type.String(),
    status: Type.String(),
    paymentFee: Type.Number({ description: 'USD' }),
    isPrivate: Type.Boolean(),
    deliveryDate: Nullable(Timestamp),
    creator: Type.String({ description: 'id of the creator' }),
    owners: Type.Array(Type.String(), { description: 'the assigned talent (one id), empty while nobody is' }),
    parent: Nullable(Type.String()),
    escrowPaid: Type.Boolean(),
    isDeleted: Type.Boolean(),
  },
  {
    $id: 'CollectionRef',
    description: 'The collection (job) an invite, application or review is about.',
    examples: [COLLECTION_REF],
  },
)

const Page = {
  total: Type.Integer({ examples: [1] }),
  pages: Type.Integer({ examples: [1] }),
  page: Type.Integer({ examples: [1] }),
  limit: Type.Integer({ examples: [12] }),
}

// ---- invites ----

export const InviteStatus = Type.Union(
  [
    Type.Literal('pending'),
    Type.Literal('accepted'),
    Type.Literal('rejected'),
    Type.Literal('cancelled'),
    Type.Literal('expired'),
  ],
  {
    description:
      '`pending` until the talent accepts (`accepted`) or declines (`rejected`), the creator cancels it (`cancelled`), or it closes because the job got its talent or ended (`expired`)',
  },
)

export const Invite = Type.Object(
  {
    _id: Type.String(),
    sender: UserSummary,
    receiver: UserSummary,
    data: CollectionRef,
    message: Type.String(),
    description: Type.String({ description: 'a sentence naming the sender and the job' }),
    status: InviteStatus,
    emailToken: Type.String({
      description: 'always empty: invites are answered with the token of the account',
    }),
    acceptedAt: Type.Optional(Timestamp),
    deletedAt: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'Invite',
    description: 'An invite of a talent to a job (the SDK’s IInviteDto).',
    examples: [INVITE],
  },
)

export const InvitePage = Type.Object({ data: Type.Array(Invite), ...Page }, { $id: 'InvitePage' })

export const SendInviteBody = Type.Object(
  {
    recipient: Id('the talent invited (a user id)'),
    collection: Id('the job (a top-level collection of the caller)'),
    message: Type.Optional(Text(2000)),
  },
  {
    additionalProperties: false,
    examples: [
      { recipient: EX.otherUserId, collection: EX.collectionId, message: 'Would you build this page?' },
    ],
  },
)
export type SendInviteInput = Static<typeof SendInviteBody>

export const ListInvitesQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(InviteStatus),
    collection: Type.Optional(Id('only the invites of this job')),
    data: Type.Optional(Id('the same as `collection` (the SDK’s field name)')),
    role: Type.Optional(
      Type.Union([Type.Literal('sent'), Type.Literal('received')], {
        description: 'only the invites the caller sent, or received (default: both)',
      }),
    ),
  },
  { additionalProperties: false },
)
export type ListInvitesQueryT = Static<typeof ListInvitesQuery>

// ---- applications ----

export const ApplicationStatus = Type.Union(
  [Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('rejected'), Type.Literal('expired')],
  {
    description:
      '`pending` until the creator accepts or rejects it; `expired` once the job got another talent or ended',
  },
)

export const Application = Type.Object(
  {
    _id: Type.String(),
    applicant: UserSummary,
    data: CollectionRef,
    message: Type.String(),
    amount: Nullable(Type.Number(), 'the price asked in USD; null when the job’s own price is accepted'),
    status: ApplicationStatus,
    decidedAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Application', description: 'A talent’s application to a public job.', examples: [APPLICATION] },
)

export const ApplicationPage = Type.Object(
  { data: Type.Array(Application), ...Page },
  { $id: 'ApplicationPage' },
)

export const ApplyBody = Type.Object(
  {
    message: Text(5000, { minLength: 1, description: 'the cover letter' }),
    amount: Type.Optional(Usd('the price asked, more than 0')),
  },
  {
    additionalProperties: false,
    examples: [{ message: 'I built three pages like it last month.', amount: 140 }],
  },
)
export type ApplyInput = Static<typeof ApplyBody>

export const ListApplicationsQuery = Type.Object(
  { ...PaginationQuery, status: Type.Optional(ApplicationStatus) },
  { additionalProperties: false },
)
export type ListApplicationsQueryT = Static<typeof ListApplicationsQuery>

export const MyApplicationsQuery = Type.Object(
  {
    ...PaginationQuery,
    status: Type.Optional(ApplicationStatus),
    collection: Type.Optional(Id('only the caller’s applications to this job')),
  },
  { additionalProperties: false },
)
export type MyApplicationsQueryT = Static<typeof MyApplicationsQuery>

// ---- delivery and cancellation ----

export const DeliverBody = Type.Object(
  {
    note: Type.Optional(Text(5000, { description: 'a note to the creator' })),
    attachments: Type.Optional(
      Type.Array(Id(), {
        maxItems: 20,
        description: 'ids of the talent’s own uploads (#31, #32), at most 20',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ note: 'The page is live on the staging server.', attachments: [EX.fileId] }],
  },
)
export type DeliverInput = Static<typeof DeliverBody>

export const CancelBody = Type.Object(
  {
    reason: Text(2000, { minLength: 1, description: 'why the job is cancelled (`cancellationReason`)' }),
    paymentPercentage: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        description:
          'share of what remains in escrow paid to the talent (default 0: all of it goes back to the creator)',
      }),
    ),
  },
  { additionalProperties: false, examples: [{ reason: 'The launch was called off', paymentPercentage: 0 }] },
)
export type CancelInput = Static<typeof CancelBody>

// ---- deliverables in bulk ----

const ManyCreateItem = Type.Omit(
  Type.Object(CreateCollectionBody.properties),
  ['type', 'parent', 'isParentFunded'],
  {
    additionalProperties: false,
  },
)

export const CreateManyBody = Type.Object(
  {
    type: CreateCollectionBody.properties.type,
    parent: Id('the job the new collections go under (one of the caller’s own top-level collections)'),
    collections: Type.Array(ManyCreateItem, { minItems: 1, maxItems: 50, description: 'at most 50' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        type: 'job',
        parent: EX.collectionId,
        collections: [
          { name: 'Design', description: 'Mock-ups of the page' },
          { name: 'Build', description: 'The page, responsive' },
        ],
      },
    ],
  },
)
export type CreateManyInput = Static<typeof CreateManyBody>

// ---- reviews ----

export const Review = Type.Object(
  {
    _id: Type.String(),
    data: CollectionRef,
    owner: UserSummary,
    receiver: UserSummary,
    type: Type.Union([Type.Literal('talent'), Type.Literal('creator')], {
      description: 'who was reviewed: `talent` (written by the creator) or `creator` (written by the talent)',
    }),
    review: Type.String(),
    rating: Type.Integer({ minimum: 1, maximum: 5 }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'Review',
    description: 'A review of one party of a job by the other (the SDK’s IReviewDto).',
    examples: [REVIEW],
  },
)

export const ReviewPage = Type.Object(
  {
    data: Type.Array(Review),
    count: Type.Integer({ description: 'the number of matching reviews (the SDK’s name)', examples: [1] }),
    ...Page,
  },
  { $id: 'ReviewPage' },
)

export const AddReviewBody = Type.Object(
  {
    collectionId: Id('the job'),
    receiver: Id('the other party of the job'),
    rating: Type.Integer({ minimum: 1, maximum: 5, description: 'whole stars, 1–5' }),
    review: Text(5000, { minLength: 1 }),
  },
  {
    additionalProperties: false,
    examples: [
      { collectionId: EX.collectionId, receiver: EX.otherUserId, rating: 5, review: 'Fast, careful work.' },
    ],
  },
)
export type AddReviewInput = Static<typeof AddReviewBody>

export const ListReviewsQuery = Type.Object(
  {
    ...PaginationQuery,
    receiver: Type.Optional(Id('reviews about this user')),
    owner: Type.Optional(Id('reviews written by this user')),
    collectionId: Type.Optional(Id('reviews of this job')),
    data: Type.Optional(Id('the same as `collectionId` (the SDK’s field name)')),
    type: Type.Optional(Type.Union([Type.Literal('talent'), Type.Literal('creator')])),
    rating: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  },
  { additionalProperties: false },
)
export type ListReviewsQueryT = Static<typeof ListReviewsQuery>

// ---- disputes ----

export const RaiseDisputeBody = Type.Object(
  {
    reason: Text(5000, { minLength: 1, description: 'the issue (`issue` on the job)' }),
    evidence: Type.Optional(
      Type.Array(Id(), { maxItems: 20, description: 'ids of the caller’s own uploads, at most 20' }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ reason: 'The page does not load on mobile', evidence: [EX.fileId] }],
  },
)
export type RaiseDisputeInput = Static<typeof RaiseDisputeBody>

export const SplitBody = Type.Object(
  {
    creatorAmount: Usd('returned to the creator'),
    ownerAmount: Usd('released to the talent'),
  },
  { additionalProperties: false, examples: [{ creatorAmount: 50, ownerAmount: 100 }] },
)
export type SplitInput = Static<typeof SplitBody>

export const DecideBody = Type.Object(
  { ...SplitBody.properties, note: Type.Optional(Text(5000)) },
  {
    additionalProperties: false,
    examples: [{ creatorAmount: 50, ownerAmount: 100, note: 'Half of the pages were delivered' }],
  },
)
export type DecideInput = Static<typeof DecideBody>

export const Dispute = Type.Object(
  {
    _id: Type.String(),
    collection: Type.String(),
    escrowId: Type.String(),
    raisedBy: Type.String(),
    reason: Type.String(),
    evidence: Type.Array(Type.String()),
    evidenceData: Type.Array(FileSummary, {
      description: 'summaries of the evidence files that still exist',
    }),
    status: Type.Union([Type.Literal('open'), Type.Literal('settling'), Type.Literal('settled')], {
      description:
        '`open`; `settling` once a split is agreed or decided and being paid; `settled` once it is paid',
    }),
    escrowAmount: Type.Number({ description: 'USD of the price still in escrow: a split must add up to it' }),
    proposal: Nullable(
      Type.Object({
        proposedBy: Type.String(),
        creatorAmount: Type.Number(),
        ownerAmount: Type.Number(),
        proposedAt: Timestamp,
      }),
      'the split last proposed by a party, for the other to accept',
    ),
    resolution: Nullable(Type.Union([Type.Literal('agreement'), Type.Literal('arbiter')])),
    creatorAmount: Nullable(Type.Number(), 'USD returned to the creator by the resolution'),
    ownerAmount: Nullable(Type.Number(), 'USD released to the talent by the resolution'),
    decidedBy: Nullable(Type.String(), 'the arbiter, when one decided'),
    note: Type.String(),
    resolvedAt: Nullable(Timestamp),
    paidAt: Nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Dispute', description: 'The dispute over a job and how it ends.', examples: [DISPUTE] },
)
