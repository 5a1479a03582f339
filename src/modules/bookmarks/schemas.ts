// Bookmarks (ICollectionBookmarkDto of the public SDK): of collections, users, feed entries and
// invites. Request and answer schemas.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { BOOKMARK, BOOKMARK_ITEM, fullFields, StrArray, UserSummary } from '../collections/types.ts'
import { Feed } from '../feeds/types.ts'
import { Invite } from '../work/types.ts'

export const BOOKMARK_TYPES = ['collection', 'user', 'feed', 'invite'] as const
export type BookmarkType = (typeof BOOKMARK_TYPES)[number]

const BookmarkTypeSchema = Type.Union(
  BOOKMARK_TYPES.map((t) => Type.Literal(t)),
  { description: 'what is bookmarked (the SDK’s BookmarkType)' },
)

export const CreateBookmarkBody = Type.Object(
  {
    reference: Id('id of the bookmarked collection, user, feed entry or invite'),
    type: BookmarkTypeSchema,
  },
  { additionalProperties: false, examples: [{ reference: EX.collectionId, type: 'collection' }] },
)

export const ListBookmarksQuery = Type.Object(
  { ...PaginationQuery, type: Type.Optional(BookmarkTypeSchema) },
  { additionalProperties: false },
)

const BookmarkedCollection = Type.Object({
  ...fullFields,
  creator: UserSummary,
  collections: StrArray,
})

export const Bookmark = Type.Object(
  {
    _id: Type.String(),
    owner: Type.String({ description: 'the user who bookmarked' }),
    type: BookmarkTypeSchema,
    reference: Type.String({ description: 'the id of what is bookmarked' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  { $id: 'Bookmark', examples: [BOOKMARK] },
)

const orNull = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Optional(Type.Union([schema, Type.Null()], { description }))

export const BookmarkListItem = Type.Object(
  {
    ...Bookmark.properties,
    data: orNull(
      BookmarkedCollection,
      'type `collection`: the collection (the SDK’s name; the same object as `collection`), null once deleted or no longer visible',
    ),
    collection: orNull(
      BookmarkedCollection,
      'type `collection`: the collection, null once it is deleted or no longer visible',
    ),
    user: orNull(UserSummary, 'type `user`: the user summary, null once the account is gone or private'),
    feed: orNull(Feed, 'type `feed`: the feed entry, null once the caller may no longer see it'),
    invite: orNull(Invite, 'type `invite`: the invite (the caller sent or received it)'),
  },
  {
    $id: 'BookmarkWithTarget',
    description: 'A bookmark with what it points to, under the field of its type.',
    examples: [
      {
        ...BOOKMARK_ITEM,
        data: BOOKMARK_ITEM.collection,
      },
    ],
  },
)

export const BookmarkPage = Type.Object(
  {
    data: Type.Array(BookmarkListItem),
    total: Type.Integer({ examples: [1] }),
    pages: Type.Integer({ examples: [1] }),
    page: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
  },
  { $id: 'BookmarkPage' },
)
