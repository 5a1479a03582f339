// Table types of live pushes (oversized payloads, presence) and chat.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface LiveMessagesTable {
  id: string
  payload: ColumnType<unknown, string, string>
  createdAt: ColumnType<Date, Date | string | undefined, Date | string>
}

export interface LiveProcessesTable {
  id: string
  heartbeatAt: Timestamp
}

export interface LivePresenceTable {
  processId: string
  userId: string
  sockets: number
}

export interface ChatConversationsTable {
  id: string
  /** `collection` (its creator and assigned talent) or `direct` (two users) */
  type: string
  collectionId: string | null
  /** the two user ids of a direct conversation, sorted and joined with `:` */
  pairKey: string | null
  createdAt: Timestamp
  lastMessageAt: NullableTimestamp
}

export interface ChatMembersTable {
  conversationId: string
  userId: string
  joinedAt: Timestamp
  lastReadAt: NullableTimestamp
}

export interface ChatMessagesTable {
  id: string
  conversationId: string
  senderId: string
  type: ColumnType<string, string | undefined, string>
  content: ColumnType<string, string | undefined, string>
  mediaId: string | null
  quotedMessageId: string | null
  createdAt: Timestamp
}

export interface LiveTables {
  liveMessages: LiveMessagesTable
  liveProcesses: LiveProcessesTable
  livePresence: LivePresenceTable
  chatConversations: ChatConversationsTable
  chatMembers: ChatMembersTable
  chatMessages: ChatMessagesTable
}
