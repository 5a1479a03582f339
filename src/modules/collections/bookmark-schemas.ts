// Bookmarks of collections: request and answer schemas.
import { Type } from 'typebox'
import { EX } from '../../http/examples.ts'
import { Id, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { BOOKMARK, BOOKMARK_ITEM } from './schema-examples.ts'
import { fullFields, StrArray, UserSummary } from './schemas.ts'

export const CreateBookmarkBody = Type.Object(
  {
    reference: Id('id of the bookmarked collection or user'),
    type: Type.Union([Type.Literal('collection'), Type.Literal('user')]),
  },
  { additionalProperties: false, examples: [{ reference: EX.collectionId, type: 'collection' }] },
)

export const ListBookmarksQuery = Type.Object(
  {
    ...PaginationQuery,
    type: Type.Optional(Type.Union([Type.Literal('collection'), Type.Literal('user')])),
  },
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
    type: Type.String({ description: '`collection` or `user`' }),
    reference: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    __v: Type.Number(),
  },
  { $id: 'Bookmark', examples: [BOOKMARK] },
)

export const BookmarkListItem = Type.Object(
  {
    ...Bookmark.properties,
    collection: Type.Optional(
      Type.Union([BookmarkedCollection, Type.Null()], {
        description: 'type `collection`: the collection, null once it is deleted or no longer visible',
      }),
    ),
    user: Type.Optional(
      Type.Union([UserSummary, Type.Null()], {
        description: 'type `user`: the user summary, null once the account is gone or private',
      }),
    ),
  },
  {
    $id: 'BookmarkWithTarget',
    description: 'A bookmark with what it points to.',
    examples: [BOOKMARK_ITEM],
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
