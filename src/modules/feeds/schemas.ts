// The feeds contract: IFeed of the public SDK and its list.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { FEED_TYPES } from './catalog.ts'

const FeedType = Type.Union(
  FEED_TYPES.map((t) => Type.Literal(t)),
  { description: 'the SDK’s FEED_TYPES' },
)

const feedExample = {
  _id: '6b048391bce238a5cbe00a81',
  creator: EX.userId,
  owner: EX.userId,
  owners: [EX.userId],
  data: EX.collectionId,
  title: 'New job',
  description: 'A job was posted.',
  type: 'collection_created',
  isPublic: true,
  closed: false,
  createdAt: EX.created,
  updatedAt: EX.created,
}

export const Feed = Type.Object(
  {
    _id: Type.String(),
    creator: Type.String({ description: 'who caused it (empty when the platform did)' }),
    owner: Type.String({ description: 'the first user it concerns' }),
    owners: Type.Array(Type.String(), { description: 'the users it concerns' }),
    data: Type.String({ description: 'the collection it is about (the new account for a referral)' }),
    title: Type.String(),
    description: Type.String(),
    type: FeedType,
    isPublic: Type.Boolean({ description: 'shown to everyone; otherwise to the users it concerns only' }),
    closed: Type.Boolean({ description: 'dismissed by the caller' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Feed', description: 'An entry of the activity stream.', examples: [feedExample] },
)

export const FeedList = Type.Object(
  {
    data: Type.Array(Feed),
    total: Type.Number(),
    pages: Type.Number(),
    page: Type.Number(),
    limit: Type.Number(),
  },
  { $id: 'FeedPage', examples: [{ data: [feedExample], total: 1, pages: 1, page: 1, limit: 12 }] },
)

export const FeedListQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(FeedType),
    owner: Type.Optional(Id('only entries of this user (as far as the caller may see them)')),
    isOwner: Type.Optional(
      Type.Boolean({ description: 'true: only entries that concern the caller (the SDK always sends it)' }),
    ),
    isPublic: Type.Optional(
      Type.Boolean({ description: 'only public (true) or only private (false) entries' }),
    ),
  },
  { additionalProperties: false },
)

export const CreateFeedBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }),
    description: Type.String({ minLength: 1, maxLength: 2000, pattern: '^[^\\u0000]*$' }),
    type: FeedType,
    data: Type.String({
      maxLength: 200,
      pattern: '^[^\\u0000]*$',
      description: 'what the entry is about, e.g. a collection id (shown as `data`)',
    }),
    isPublic: Type.Boolean({ description: 'shown to everyone; otherwise to its owners and the caller only' }),
    owners: Type.Optional(
      Type.Union([Type.Array(Id(), { maxItems: 20 }), Id()], {
        description:
          'the users it concerns (live accounts, at most 20; one id or a list); the caller when absent',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        title: 'Portfolio updated',
        description: 'Three new case studies are up.',
        type: 'collection_update',
        data: EX.collectionId,
        isPublic: true,
      },
    ],
  },
)

export const EmptyData = Type.Object({}, { additionalProperties: false, examples: [{}] })
