// The only SQL of chat: conversations, members with their read state, messages; and the reads of
// who shares a collection (its creator, its talent, its invitees and applicants).
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { countedPage, exists, type PageRequest } from '../../db/reads.ts'

export interface ConversationRow {
  id: string
  type: string
  collectionId: string | null
  pairKey: string | null
  createdAt: Date
  lastMessageAt: Date | null
}

export interface MessageRow {
  id: string
  conversationId: string
  senderId: string
  type: string
  content: string
  mediaId: string | null
  quotedMessageId: string | null
  createdAt: Date
}

const MESSAGE_COLUMNS = [
  'id',
  'conversationId',
  'senderId',
  'type',
  'content',
  'mediaId',
  'quotedMessageId',
  'createdAt',
] as const

/** A member of a conversation with their read mark. */
export interface MemberRow {
  conversationId: string
  userId: string
  lastReadAt: Date | null
  joinedAt: Date
}

/** What a message is sent against, read in one statement (see sendContext). */
export interface SendContext extends ConversationRow {
  /** the collection's creator and talent, for a collection's conversation whose job is live (as
   * ChatCollections.get reads them) */
  parties: { creatorId: string; receiverId: string | null } | null
  isMember: boolean
  /** the conversation of the quoted message; null when there is none (or none was asked) */
  quotedConversationId: string | null
}

export const chatRepo = {
  /**
   * The conversation `id` with what sending to it checks, in one statement: its live collection's
   * creator and talent (the read of who shares a collection, as shareCollection), whether
   * `userId` is a member, and the conversation of the quoted message `quotedId`.
   */
  async sendContext(
    ex: Executor,
    id: string,
    userId: string,
    quotedId: string | null,
  ): Promise<SendContext | undefined> {
    const { rows } = await sql<SendContext>`
      select cv.id, cv.type, cv.collection_id, cv.pair_key, cv.created_at, cv.last_message_at,
        (select jsonb_build_object('creatorId', c.creator_id, 'receiverId', c.receiver_id)
          from collections c where c.id = cv.collection_id and c.is_deleted = false) as parties,
        exists (select 1 from chat_members m where m.conversation_id = cv.id and m.user_id = ${userId})
          as is_member,
        ${quotedId === null ? sql`null::text` : sql`(select q.conversation_id::text from chat_messages q where q.id = ${quotedId})`}
          as quoted_conversation_id
      from chat_conversations cv where cv.id = ${id}`.execute(ex)
    return rows[0]
  },

  /**
   * Writes a message in one statement: the collection's parties joined as members first when
   * `join` names them (the sender's read mark at the message), the message, the conversation's
   * last activity, and the sender's read mark moved forward to the message (never back). Answers
   * the members with their read marks as they are after it, in join order.
   */
  async writeMessage(ex: Executor, row: MessageRow, join: readonly string[] | null): Promise<MemberRow[]> {
    const at = row.createdAt
    const conv = row.conversationId
    const joined = join?.length
      ? sql`, joined as (
          insert into chat_members (conversation_id, user_id, joined_at, last_read_at)
          values ${sql.join(
            join.map(
              (u) => sql`(${conv}, ${u}, ${at}::timestamptz, ${u === row.senderId ? at : null}::timestamptz)`,
            ),
          )}
          on conflict (conversation_id, user_id) do nothing
          returning conversation_id, user_id, last_read_at, joined_at)`
      : sql``
    const { rows } = await sql<MemberRow>`
      with message as (
        insert into chat_messages (id, conversation_id, sender_id, type, content, media_id, quoted_message_id, created_at)
        values (${row.id}, ${conv}, ${row.senderId}, ${row.type}, ${row.content}, ${row.mediaId},
          ${row.quotedMessageId}, ${at})
      ), activity as (
        update chat_conversations set last_message_at = ${at} where id = ${conv}
      ), seen as (
        update chat_members set last_read_at = ${at}
        where conversation_id = ${conv} and user_id = ${row.senderId}
          and (last_read_at is null or last_read_at < ${at})
        returning user_id, last_read_at
      )${joined}
      select m.conversation_id, m.user_id, coalesce(seen.last_read_at, m.last_read_at) as last_read_at, m.joined_at
      from chat_members m left join seen on seen.user_id = m.user_id
      where m.conversation_id = ${conv}
      ${join?.length ? sql`union all select conversation_id, user_id, last_read_at, joined_at from joined` : sql``}`.execute(
      ex,
    )
    // The members' order of chatRepo.members: by joining time, then id.
    return rows.sort(
      (a, b) =>
        a.joinedAt.getTime() - b.joinedAt.getTime() ||
        (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
    )
  },

  /** Whether `a` and `b` are two parties of one live collection (creator, talent, invitee, applicant). */
  async shareCollection(ex: Executor, a: string, b: string): Promise<boolean> {
    const row = await sql<{ ok: number }>`
      select 1 as ok from collections c
      where c.is_deleted = false and (
        (c.creator_id = ${a} and (c.receiver_id = ${b}
          or exists (select 1 from invites i where i.collection_id = c.id and i.receiver_id = ${b})
          or exists (select 1 from applications p where p.collection_id = c.id and p.applicant_id = ${b})))
        or
        (c.creator_id = ${b} and (c.receiver_id = ${a}
          or exists (select 1 from invites i where i.collection_id = c.id and i.receiver_id = ${a})
          or exists (select 1 from applications p where p.collection_id = c.id and p.applicant_id = ${a}))))
      limit 1`.execute(ex)
    return row.rows.length > 0
  },

  userExists(ex: Executor, id: string): Promise<boolean> {
    return exists(ex.selectFrom('users').select('id').where('id', '=', id).where('deletedAt', 'is', null))
  },

  /** The conversation of a collection, or of a pair of users (its `pairKey`). */
  async find(
    ex: Executor,
    key: { collectionId: string } | { pairKey: string },
  ): Promise<ConversationRow | undefined> {
    const q = ex.selectFrom('chatConversations').selectAll()
    const match =
      'collectionId' in key
        ? q.where('type', '=', 'collection').where('collectionId', '=', key.collectionId)
        : q.where('type', '=', 'direct').where('pairKey', '=', key.pairKey)
    return match.executeTakeFirst()
  },

  async get(ex: Executor, id: string): Promise<ConversationRow | undefined> {
    return ex.selectFrom('chatConversations').selectAll().where('id', '=', id).executeTakeFirst()
  },

  /** Inserts unless the collection's or the pair's conversation exists (then nothing). */
  async insert(ex: Executor, row: ConversationRow): Promise<void> {
    await sql`
      insert into chat_conversations (id, type, collection_id, pair_key, created_at, last_message_at)
      values (${row.id}, ${row.type}, ${row.collectionId}, ${row.pairKey}, ${row.createdAt}, null)
      on conflict do nothing`.execute(ex)
  },

  async addMembers(
    ex: Executor,
    conversationId: string,
    userIds: readonly string[],
    at: Date,
  ): Promise<void> {
    if (userIds.length === 0) return
    await ex
      .insertInto('chatMembers')
      .values(userIds.map((userId) => ({ conversationId, userId, joinedAt: at, lastReadAt: null })))
      .onConflict((oc) => oc.columns(['conversationId', 'userId']).doNothing())
      .execute()
  },

  async members(ex: Executor, conversationIds: readonly string[]) {
    if (conversationIds.length === 0) return []
    return ex
      .selectFrom('chatMembers')
      .select(['conversationId', 'userId', 'lastReadAt', 'joinedAt'])
      .where('conversationId', 'in', conversationIds)
      .orderBy('joinedAt')
      .orderBy('userId')
      .execute()
  },

  isMember(ex: Executor, conversationId: string, userId: string): Promise<boolean> {
    return exists(
      ex
        .selectFrom('chatMembers')
        .select('userId')
        .where('conversationId', '=', conversationId)
        .where('userId', '=', userId),
    )
  },

  /** The caller's conversations, the latest activity first. */
  async listFor(ex: Executor, userId: string, limit: number, offset: number): Promise<ConversationRow[]> {
    return ex
      .selectFrom('chatConversations as c')
      .innerJoin('chatMembers as m', 'm.conversationId', 'c.id')
      .selectAll('c')
      .where('m.userId', '=', userId)
      .orderBy(sql`coalesce(c.last_message_at, c.created_at)`, 'desc')
      .orderBy('c.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
  },

  /** The latest `per` messages of each conversation, oldest first within each. */
  async latestMessages(ex: Executor, conversationIds: readonly string[], per: number): Promise<MessageRow[]> {
    if (conversationIds.length === 0) return []
    const rows = await sql<MessageRow>`
      select id, conversation_id, sender_id, type, content, media_id, quoted_message_id, created_at
      from (
        select m.*, row_number() over (partition by conversation_id order by created_at desc, id desc) as n
        from chat_messages m where conversation_id in (${sql.join(conversationIds)})
      ) ranked
      where n <= ${per}
      order by conversation_id, created_at, id`.execute(ex)
    return rows.rows
  },

  async unreadCounts(ex: Executor, userId: string, conversationIds: readonly string[]) {
    if (conversationIds.length === 0) return new Map<string, number>()
    const rows = await sql<{ conversationId: string; unread: number }>`
      select m.conversation_id, count(x.id)::int as unread
      from chat_members m
      left join chat_messages x on x.conversation_id = m.conversation_id and x.sender_id <> m.user_id
        and (m.last_read_at is null or x.created_at > m.last_read_at)
      where m.user_id = ${userId} and m.conversation_id in (${sql.join(conversationIds)})
      group by m.conversation_id`.execute(ex)
    return new Map(rows.rows.map((r) => [r.conversationId, Number(r.unread)]))
  },

  /** One page of a conversation's messages, newest first, with the number of all (counted only when needed). */
  messagesPage(
    ex: Executor,
    conversationId: string,
    p: PageRequest,
  ): Promise<{ total: number; rows: MessageRow[] }> {
    return countedPage(
      ex.selectFrom('chatMessages').where('conversationId', '=', conversationId),
      (q) => q.select(MESSAGE_COLUMNS),
      { by: ['createdAt', 'id'], first: 'newest' },
      p,
      'when-needed',
    )
  },

  async getMessage(ex: Executor, id: string): Promise<MessageRow | undefined> {
    return ex.selectFrom('chatMessages').select(MESSAGE_COLUMNS).where('id', '=', id).executeTakeFirst()
  },

  async insertMessage(ex: Executor, row: MessageRow): Promise<void> {
    await ex.insertInto('chatMessages').values(row).execute()
    await ex
      .updateTable('chatConversations')
      .set({ lastMessageAt: row.createdAt })
      .where('id', '=', row.conversationId)
      .execute()
  },

  /** Moves the member's read mark forward to `at` (never back). */
  async markRead(ex: Executor, conversationId: string, userId: string, at: Date): Promise<void> {
    await ex
      .updateTable('chatMembers')
      .set({ lastReadAt: at })
      .where('conversationId', '=', conversationId)
      .where('userId', '=', userId)
      .where((eb) => eb.or([eb('lastReadAt', 'is', null), eb('lastReadAt', '<', at)]))
      .execute()
  },
}
