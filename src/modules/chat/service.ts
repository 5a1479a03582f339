// Chat: a conversation per collection (its creator and its assigned talent) and direct ones
// between two users who share a collection; messages with an optional attachment (a file of the
// sender), read receipts, and a live push of each to the other participants on commit.

import type { Db, Executor, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { isId, newId } from '../../platform/crypto/ids.ts'
import type { ConnectionGate } from '../connections/types.ts'
import { publishLive } from '../live/module.ts'
import { type ConversationRow, chatRepo, type MessageRow } from './repo.ts'

/** What chat needs of collections: the job's parties, if the caller may see it. */
export interface ChatCollections {
  get(ex: Executor, id: string): Promise<{ creatorId: string; receiverId: string | null } | undefined>
}

/** What chat needs of files: the sender's own files, and summaries to embed. */
export interface ChatFiles {
  assertOwned(
    ex: Executor,
    userId: string,
    ids: readonly string[],
    opts?: { path?: string },
  ): Promise<Map<string, object>>
  summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, object>>
}

export interface ChatDeps {
  db: Db
  clock: Clock
  collections: ChatCollections
  files: ChatFiles
  /** the recipient's connection filters, checked before a new direct conversation */
  connections: ConnectionGate
}

export type OpenConversation = { collectionId: string } | { recipientId: string }
export interface SendMessage {
  content?: string
  mediaId?: string
  quotedContentId?: string
}

/** How many recent messages a conversation carries in lists. */
export const RECENT_MESSAGES = 20
export const MAX_CONTENT = 4000

export class ChatService {
  constructor(private readonly deps: ChatDeps) {}

  /** The caller's conversation of a collection, or with a user; made on first use. */
  async open(userId: string, input: OpenConversation) {
    const now = this.deps.clock.now()
    // A new direct conversation passes the recipient's rules (read before the transaction opens);
    // one that exists already is simply answered.
    if ('recipientId' in input && input.recipientId !== userId && isId(input.recipientId)) {
      const pairKey = [userId, input.recipientId].sort().join(':')
      if (!(await chatRepo.find(this.deps.db, { pairKey })))
        await this.deps.connections.check(input.recipientId, userId, 'CREATE_CONVERSATION')
    }
    const id = await this.deps.db.transaction().execute(async (tx) => {
      if ('collectionId' in input) {
        const parties = await this.#collectionParties(tx, input.collectionId, userId)
        await chatRepo.insert(tx, {
          id: newId(),
          type: 'collection',
          collectionId: input.collectionId,
          pairKey: null,
          createdAt: now,
          lastMessageAt: null,
        })
        const conv = await chatRepo.find(tx, { collectionId: input.collectionId })
        if (!conv) throw new Error('conversation vanished')
        await chatRepo.addMembers(tx, conv.id, parties, now)
        return conv.id
      }
      const other = input.recipientId
      if (other === userId) throw errors.field('/recipientId', 'A conversation needs another user')
      if (!isId(other) || !(await chatRepo.userExists(tx, other))) throw errors.notFound('user')
      if (!(await chatRepo.shareCollection(tx, userId, other))) {
        throw errors.forbidden('Direct conversations are between users who share a collection')
      }
      const pairKey = [userId, other].sort().join(':')
      await chatRepo.insert(tx, {
        id: newId(),
        type: 'direct',
        collectionId: null,
        pairKey,
        createdAt: now,
        lastMessageAt: null,
      })
      const conv = await chatRepo.find(tx, { pairKey })
      if (!conv) throw new Error('conversation vanished')
      await chatRepo.addMembers(tx, conv.id, [userId, other], now)
      return conv.id
    })
    return this.get(userId, id)
  }

  async list(userId: string, q: { page?: number; limit?: number }) {
    const limit = q.limit ?? 12
    const offset = ((q.page ?? 1) - 1) * limit
    const rows = await chatRepo.listFor(this.deps.db, userId, limit, offset)
    return this.#shape(this.deps.db, userId, rows)
  }

  async get(userId: string, id: string, ex: Executor = this.deps.db) {
    const conv = await this.#readable(ex, id, userId)
    const [shaped] = await this.#shape(ex, userId, [conv])
    return shaped!
  }

  async messages(userId: string, id: string, q: { page?: number; limit?: number }) {
    const ex = this.deps.db
    await this.#readable(ex, id, userId)
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await chatRepo.messagesPage(ex, id, { page, limit })
    const members = await chatRepo.members(ex, [id])
    return {
      data: await this.#messages(ex, rows, members),
      page,
      pages: Math.ceil(total / limit),
      limit,
      total,
    }
  }

  /** The newest messages of a collection's conversation (none yet: no messages), for operators
   * (the admin API checks the caller). */
  async collectionMessagesForOperator(collectionId: string, limit: number) {
    const ex = this.deps.db
    const conv = await chatRepo.find(ex, { collectionId })
    if (!conv) return { total: 0, data: [] }
    const { total, rows } = await chatRepo.messagesPage(ex, conv.id, { page: 1, limit })
    const members = await chatRepo.members(ex, [conv.id])
    return { total, data: await this.#messages(ex, rows, members) }
  }

  async send(userId: string, conversationId: string, input: SendMessage) {
    const content = (input.content ?? '').trim()
    if (!content && !input.mediaId)
      throw errors.validation('A message needs content or a mediaId', [
        { path: '/content', message: 'empty' },
      ])
    if (content.length > MAX_CONTENT) throw errors.field('/content', `At most ${MAX_CONTENT} characters`)
    const now = this.deps.clock.now()
    const quotedId = input.quotedContentId || null
    return this.deps.db.transaction().execute(async (tx) => {
      // What the send checks, in one statement, and the checks in the order of #readable's.
      const conv = isId(conversationId)
        ? await chatRepo.sendContext(
            tx,
            conversationId,
            userId,
            quotedId !== null && isId(quotedId) ? quotedId : null,
          )
        : undefined
      if (!conv) throw errors.notFound('conversation')
      let join: string[] | null = null
      if (conv.type === 'collection') {
        // The parties of a collection as they are now: a talent replaced loses the conversation.
        const job = conv.parties
        if (!job || (job.creatorId !== userId && job.receiverId !== userId))
          throw errors.notFound('conversation')
        join = job.receiverId ? [job.creatorId, job.receiverId] : [job.creatorId]
      } else if (!conv.isMember) throw errors.notFound('conversation')
      const media = input.mediaId
        ? await this.deps.files.assertOwned(tx, userId, [input.mediaId], { path: '/mediaId' })
        : undefined
      if (quotedId !== null && conv.quotedConversationId !== conv.id) {
        throw errors.field('/quotedContentId', 'Not a message of this conversation')
      }
      const row: MessageRow = {
        id: newId(now.getTime()),
        conversationId: conv.id,
        senderId: userId,
        type: input.mediaId ? 'media' : 'text',
        content,
        mediaId: input.mediaId ?? null,
        quotedMessageId: input.quotedContentId ?? null,
        createdAt: now,
      }
      // The message, the parties joined, the last activity and the sender's read mark (sending is
      // reading: the sender has seen everything up to their own message), in one statement.
      const members = await chatRepo.writeMessage(tx, row, join)
      const [message] = await this.#messages(tx, [row], members, media)
      await publishLive(tx, { userIds: members.map((m) => m.userId), type: 'chat.message', data: message })
      return message!
    })
  }

  /** The caller has read the conversation up to now: a receipt to every participant. */
  async read(userId: string, conversationId: string) {
    const now = this.deps.clock.now()
    return this.deps.db.transaction().execute(async (tx) => {
      const conv = await this.#readable(tx, conversationId, userId)
      await chatRepo.markRead(tx, conv.id, userId, now)
      const members = await chatRepo.members(tx, [conv.id])
      const readAt = members.find((m) => m.userId === userId)?.lastReadAt ?? now
      const receipt = { conversationId: conv.id, userId, readAt }
      await publishLive(tx, { userIds: members.map((m) => m.userId), type: 'chat.read', data: receipt })
      return receipt
    })
  }

  /** The conversation if the caller takes part in it; 404 otherwise (its existence is not told). */
  async #readable(ex: Executor, id: string, userId: string): Promise<ConversationRow> {
    const conv = isId(id) ? await chatRepo.get(ex, id) : undefined
    if (!conv) throw errors.notFound('conversation')
    if (conv.type === 'collection') {
      // The parties of a collection as they are now: a talent replaced loses the conversation.
      const job = await this.deps.collections.get(ex, conv.collectionId!)
      if (!job || (job.creatorId !== userId && job.receiverId !== userId))
        throw errors.notFound('conversation')
      const parties = job.receiverId ? [job.creatorId, job.receiverId] : [job.creatorId]
      await chatRepo.addMembers(ex, conv.id, parties, this.deps.clock.now())
      return conv
    }
    if (!(await chatRepo.isMember(ex, conv.id, userId))) throw errors.notFound('conversation')
    return conv
  }

  async #collectionParties(tx: Tx, collectionId: string, userId: string): Promise<string[]> {
    const job = isId(collectionId) ? await this.deps.collections.get(tx, collectionId) : undefined
    if (!job || (job.creatorId !== userId && job.receiverId !== userId)) {
      // Someone else's job is not told apart from a missing one.
      throw errors.notFound('collection')
    }
    if (!job.receiverId)
      throw errors.named('COLLECTION_NO_TALENT', 'The collection has no talent assigned yet')
    return [job.creatorId, job.receiverId]
  }

  async #shape(ex: Executor, userId: string, rows: ConversationRow[]) {
    const ids = rows.map((r) => r.id)
    const [members, recent, unread] = await Promise.all([
      chatRepo.members(ex, ids),
      chatRepo.latestMessages(ex, ids, RECENT_MESSAGES),
      chatRepo.unreadCounts(ex, userId, ids),
    ])
    const messages = await this.#messages(ex, recent, members)
    return rows.map((r) => ({
      _id: r.id,
      type: r.type,
      collection: r.collectionId,
      recipients: members.filter((m) => m.conversationId === r.id).map((m) => m.userId),
      messages: messages.filter((m) => m.conversation === r.id),
      unreadCount: unread.get(r.id) ?? 0,
      lastMessageAt: r.lastMessageAt,
      createdAt: r.createdAt,
    }))
  }

  async #messages(
    ex: Executor,
    rows: MessageRow[],
    members: Array<{ conversationId: string; userId: string; lastReadAt: Date | null }>,
    /** the summaries of the messages' media, when the caller has them already */
    known?: Map<string, object>,
  ) {
    const media =
      known ??
      (await this.deps.files.summaries(
        ex,
        rows.flatMap((r) => (r.mediaId ? [r.mediaId] : [])),
      ))
    return rows.map((r) => ({
      _id: r.id,
      conversation: r.conversationId,
      user: r.senderId,
      type: r.type,
      content: r.content,
      mediaId: r.mediaId ? (media.get(r.mediaId) ?? null) : null,
      quotedContentId: r.quotedMessageId,
      readBy: members
        .filter(
          (m) =>
            m.conversationId === r.conversationId &&
            m.userId !== r.senderId &&
            m.lastReadAt !== null &&
            m.lastReadAt >= r.createdAt,
        )
        .map((m) => m.userId),
      createdAt: r.createdAt,
    }))
  }
}
