// The chat contract: conversations and messages as the SDK's IChatConversation and IChatMessage.
import { Type } from 'typebox'
import { Id, NullableTimestamp, PaginationQuery, Timestamp } from '../../http/schemas.ts'
import { MAX_CONTENT } from './service.ts'

const ID = '65f1c0a2b3c4d5e6f7a8b9c0'
const ALICE = '65f1c0a2b3c4d5e6f7a8b9c1'
const BOB = '65f1c0a2b3c4d5e6f7a8b9c2'
const AT = '2026-03-01T12:00:00.000Z'

const messageExample = {
  _id: '65f1c0a2b3c4d5e6f7a8b9d0',
  conversation: ID,
  user: ALICE,
  type: 'text',
  content: 'The first draft is in the job’s files.',
  mediaId: null,
  quotedContentId: null,
  readBy: [BOB],
  createdAt: AT,
}

export const ChatMessage = Type.Object(
  {
    _id: Id(),
    conversation: Id('the conversation'),
    user: Id('the sender'),
    type: Type.String({ description: '`text`, or `media` when a file is attached' }),
    content: Type.String(),
    mediaId: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
      description: 'a summary of the attached file, or null',
    }),
    quotedContentId: Type.Union([Id('the quoted message'), Type.Null()]),
    readBy: Type.Array(Id(), { description: 'participants other than the sender who have read it' }),
    createdAt: Timestamp,
  },
  { $id: 'ChatMessage', examples: [messageExample] },
)

const conversationExample = {
  _id: ID,
  type: 'collection',
  collection: '65f1c0a2b3c4d5e6f7a8b9e0',
  recipients: [ALICE, BOB],
  messages: [messageExample],
  unreadCount: 0,
  lastMessageAt: AT,
  createdAt: AT,
}

export const ChatConversation = Type.Object(
  {
    _id: Id(),
    type: Type.Union([Type.Literal('collection'), Type.Literal('direct')]),
    collection: Type.Union([Id('the collection of a `collection` conversation'), Type.Null()]),
    recipients: Type.Array(Id(), { description: 'the participants' }),
    messages: Type.Array(ChatMessage, { description: 'the latest 20 messages, oldest first' }),
    unreadCount: Type.Integer({ minimum: 0, description: 'messages of others the caller has not read' }),
    lastMessageAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { $id: 'ChatConversation', examples: [conversationExample] },
)

export const ChatConversationList = Type.Array(ChatConversation, {
  $id: 'ChatConversationList',
  examples: [[conversationExample]],
})

export const ChatMessagePage = Type.Object(
  {
    data: Type.Array(ChatMessage),
    page: Type.Integer({ examples: [1] }),
    pages: Type.Integer({ examples: [1] }),
    limit: Type.Integer({ examples: [12] }),
    total: Type.Integer({ examples: [1] }),
  },
  { $id: 'ChatMessagePage', examples: [{ data: [messageExample], page: 1, pages: 1, limit: 12, total: 1 }] },
)

export const ChatReceipt = Type.Object(
  { conversationId: Id(), userId: Id(), readAt: Timestamp },
  { $id: 'ChatReceipt', examples: [{ conversationId: ID, userId: BOB, readAt: AT }] },
)

export const ListQuery = Type.Object({ ...PaginationQuery }, { additionalProperties: false })

export const OpenBody = Type.Union(
  [
    Type.Object(
      { collectionId: Id('a collection whose creator or talent you are') },
      { additionalProperties: false },
    ),
    Type.Object(
      { recipientId: Id('a user who shares a collection with you') },
      { additionalProperties: false },
    ),
  ],
  {
    description: 'Either `collectionId` or `recipientId`',
    examples: [{ collectionId: '65f1c0a2b3c4d5e6f7a8b9e0' }],
  },
)

export const SendBody = Type.Object(
  {
    content: Type.Optional(Type.String({ maxLength: MAX_CONTENT })),
    mediaId: Type.Optional(Id('one of your uploaded files')),
    quotedContentId: Type.Optional(Id('a message of this conversation')),
  },
  { additionalProperties: false, examples: [{ content: 'The first draft is in the job’s files.' }] },
)
