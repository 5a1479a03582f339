// Table types of the connection filters (a user's rules on who may reach them).
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

export interface ConnectionFiltersTable {
  id: string
  userId: string
  event: string
  key: string
  decider: string
  /** JSON: a number, a string or a list of strings */
  value: ColumnType<unknown, string, string>
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface ConnectionFilterTables {
  connectionFilters: ConnectionFiltersTable
}
