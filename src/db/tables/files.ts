// Table types of the files module (camelCase; CamelCasePlugin maps them to snake_case columns).
import type { Generated } from 'kysely'
import type { Json, NullableTimestamp, Timestamp } from '../types.ts'

export interface FileMeta {
  originalName: string
}

export interface FilesTable {
  id: string
  /** object key: `public|private/<uploader id>/<uuid>.<ext>` */
  name: string
  uploadedBy: string
  visibility: 'public' | 'private'
  /** MIME type detected from the content */
  type: string
  size: number
  bucket: string
  meta: Json<FileMeta>
  status: Generated<boolean>
  deletedAt: NullableTimestamp
  createdAt: Timestamp
  updatedAt: Timestamp
  version: Generated<number>
}

export interface FilesTables {
  files: FilesTable
}
