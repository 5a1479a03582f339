// Table types of domain events, notifications and feeds.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>

export interface EventsTable {
  id: string
  type: string
  key: string | null
  actorId: string | null
  audience: ColumnType<string[], string[] | undefined, string[]>
  collectionId: string | null
  isPublic: ColumnType<boolean, boolean | undefined, boolean>
  data: ColumnType<Record<string, unknown>, string | undefined, string>
  createdAt: Timestamp
}

export interface NotificationsTable {
  id: string
  userId: string
  eventId: string
  type: string
  title: string
  description: string
  actorId: string | null
  /** the id of the record the notification is about (collection, invite, withdrawal...) */
  ref: ColumnType<string, string | undefined, string>
  readAt: NullableTimestamp
  emailWanted: ColumnType<boolean, boolean | undefined, boolean>
  emailedAt: NullableTimestamp
  createdAt: Timestamp
}

export interface NotificationMailboxesTable {
  userId: string
  pending: ColumnType<boolean, boolean | undefined, boolean>
  updatedAt: Timestamp
}

export interface NotificationSettingsTable {
  userId: string
  emailTypes: ColumnType<string[], string[], string[]>
  updatedAt: Timestamp
}

export interface FeedDismissalsTable {
  userId: string
  eventId: string
  createdAt: Timestamp
}

export interface FeedCursorsTable {
  userId: string
  dismissedBefore: Timestamp
}

export interface EventTables {
  events: EventsTable
  notifications: NotificationsTable
  notificationMailboxes: NotificationMailboxesTable
  notificationSettings: NotificationSettingsTable
  feedDismissals: FeedDismissalsTable
  feedCursors: FeedCursorsTable
}
