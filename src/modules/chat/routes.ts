// HTTP for chat (`/v1/chat`, as the SDK's getUserMessages calls it); the same sending and
// reading run over the live WebSocket (`chat.send`, `chat.read`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, guardedErrors, IdParams, ok } from '../../http/schemas.ts'
import {
  ChatConversation,
  ChatConversationList,
  ChatMessage,
  ChatMessagePage,
  ChatReceipt,
  ListQuery,
  OpenBody,
  SendBody,
} from './schemas.ts'
import type { ChatService } from './service.ts'

export const chatRoutes: FastifyPluginAsyncTypebox<{ chat: ChatService }> = async (app, { chat }) => {
  const tags = ['chat']
  const notFound = { NOT_FOUND: 'no such conversation, or one the caller does not take part in' }

  app.get(
    '/v1/chat',
    {
      schema: {
        operationId: 'listConversations',
        summary: 'The caller’s conversations with their latest messages',
        description:
          'Conversations the caller takes part in, the latest activity first, each with its latest 20 messages (oldest first) and the caller’s unread count. `page` and `limit` page the conversations; older messages of one are read with GET /v1/chat/{id}/messages.',
        tags,
        security: bearer,
        querystring: ListQuery,
        response: {
          200: envelope(ChatConversationList, 'Conversations'),
          ...guardedErrors({ VALIDATION_ERROR: 'page or limit out of range' }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.list(caller(req).userId, req.query), 'Conversations'),
  )

  app.post(
    '/v1/chat',
    {
      schema: {
        operationId: 'openConversation',
        summary: 'Open the conversation of a collection or with a user',
        description:
          'With `collectionId`: the conversation of that collection between its creator and its assigned talent (the caller must be one of them; 422 before a talent is assigned). With `recipientId`: the direct conversation with a user who shares a collection with the caller (creator and talent, invitee or applicant of one). Answers the existing conversation when there is one.',
        tags,
        security: bearer,
        body: OpenBody,
        response: {
          200: envelope(ChatConversation, 'Conversation'),
          ...guardedErrors({
            VALIDATION_ERROR: 'neither or both of collectionId and recipientId, or the caller as recipient',
            FORBIDDEN: 'the recipient shares no collection with the caller',
            NOT_FOUND: 'no such collection (or not the caller’s), or no such user',
            COLLECTION_NO_TALENT: 'the collection has no talent assigned yet',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.open(caller(req).userId, req.body), 'Conversation'),
  )

  app.get(
    '/v1/chat/:id',
    {
      schema: {
        operationId: 'getConversation',
        summary: 'One conversation with its latest messages',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(ChatConversation, 'Conversation'),
          ...guardedErrors({ VALIDATION_ERROR: 'a malformed id', ...notFound }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.get(caller(req).userId, req.params.id), 'Conversation'),
  )

  app.get(
    '/v1/chat/:id/messages',
    {
      schema: {
        operationId: 'listMessages',
        summary: 'The messages of a conversation, newest first',
        tags,
        security: bearer,
        params: IdParams,
        querystring: ListQuery,
        response: {
          200: envelope(ChatMessagePage, 'Messages'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a malformed id, or page or limit out of range',
            ...notFound,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.messages(caller(req).userId, req.params.id, req.query), 'Messages'),
  )

  app.post(
    '/v1/chat/:id/messages',
    {
      schema: {
        operationId: 'sendMessage',
        summary: 'Send a message',
        description:
          'Text (`content`, up to 4000 characters) and/or one attached file (`mediaId`, a file the caller uploaded), optionally quoting a message of the conversation. Every participant’s sockets get it as `chat.message`.',
        tags,
        security: bearer,
        params: IdParams,
        body: SendBody,
        response: {
          200: envelope(ChatMessage, 'Message sent'),
          ...guardedErrors({
            VALIDATION_ERROR:
              'no content and no file, a file that is not the caller’s, or a quoted message of another conversation',
            ...notFound,
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.send(caller(req).userId, req.params.id, req.body), 'Message sent'),
  )

  app.post(
    '/v1/chat/:id/read',
    {
      schema: {
        operationId: 'readConversation',
        summary: 'Mark a conversation read up to now',
        description:
          'A read receipt: the messages so far list the caller in `readBy`, and every participant’s sockets get `chat.read`.',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(ChatReceipt, 'Read'),
          ...guardedErrors({ VALIDATION_ERROR: 'a malformed id', ...notFound }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await chat.read(caller(req).userId, req.params.id), 'Read'),
  )
}
