// Table types of the collection schemas and their store records.
import type { ColumnType } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>
type Json = ColumnType<unknown, string, string>

export interface CollectionSchemasTable {
  id: string
  name: string
  reference: string
  description: string
  fields: Json
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface CollectionStoreRecordsTable {
  id: string
  schemaId: string
  ownerId: string
  data: Json
  isPrivate: ColumnType<boolean, boolean | undefined, boolean>
  createdAt: Timestamp
  updatedAt: Timestamp
}

export interface CollectionStoreTables {
  collectionSchemas: CollectionSchemasTable
  collectionStoreRecords: CollectionStoreRecordsTable
}
