// Collection schemas and stores. Admins define a schema's typed fields (/v1/admin/collection-schemas);
// signed-in users read schemas (/v2/collection-schema) and keep records under one
// (/v2/collection-store/{reference}): each record checked against the fields (required, types,
// enums, lengths, ranges, unique values), owned by its creator who alone changes or deletes it,
// seen by everyone signed in unless `isPrivate`.
import type { Db } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { checkFields, checkRecord, type FieldDefinition } from './fields.ts'
import { storeRepo } from './repo.ts'

type SchemaRow = NonNullable<Awaited<ReturnType<typeof storeRepo.schema>>>
type RecordRow = NonNullable<Awaited<ReturnType<typeof storeRepo.record>>>

export interface SchemaInput {
  name: string
  description: string
  schema: FieldDefinition[]
}

export interface Page {
  page?: number
  limit?: number
}

const referenceOf = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')

function schemaForm(r: SchemaRow) {
  return {
    _id: r.id,
    name: r.name,
    reference: r.reference,
    description: r.description,
    schema: r.fields as FieldDefinition[],
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }
}

function recordForm(r: RecordRow) {
  return {
    ...(r.data as Record<string, unknown>),
    _id: r.id,
    owner: r.ownerId,
    isPrivate: r.isPrivate,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }
}

export class StoreService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  // --- schemas (admins change them; everyone signed in reads them) ---

  async createSchema(input: SchemaInput) {
    const name = input.name.trim()
    const reference = referenceOf(name)
    if (!reference) throw errors.field('/name', 'must have a letter or a digit')
    checkFields(input.schema)
    const id = newId()
    await inTransaction(this.deps.db, async (tx) => {
      if (await storeRepo.schema(tx, reference))
        throw errors.named('SCHEMA_EXISTS', 'A schema with this name already exists')
      await storeRepo.insertSchema(tx, {
        id,
        name,
        reference,
        description: input.description.trim(),
        fields: input.schema,
        now: this.deps.clock.now(),
      })
    })
    return this.schema(id)
  }

  /** Changes the description or the fields; records are checked against the new fields when next written. */
  async updateSchema(idOrReference: string, input: { description?: string; schema?: FieldDefinition[] }) {
    if (input.schema) checkFields(input.schema)
    const row = await this.#schemaRow(idOrReference)
    await storeRepo.updateSchema(
      this.deps.db,
      row.id,
      {
        ...(input.description !== undefined ? { description: input.description.trim() } : {}),
        ...(input.schema ? { fields: input.schema } : {}),
      },
      this.deps.clock.now(),
    )
    return this.schema(row.id)
  }

  /** Deletes a schema that holds no records (409 otherwise). */
  async deleteSchema(idOrReference: string) {
    await inTransaction(this.deps.db, async (tx) => {
      const row = await storeRepo.schema(tx, idOrReference, true)
      if (!row) throw errors.notFound('collection schema')
      if (await storeRepo.hasRecords(tx, row.id))
        throw errors.named('SCHEMA_HAS_RECORDS', 'This schema holds records; delete them first')
      await storeRepo.deleteSchema(tx, row.id)
    })
    return {}
  }

  async schema(idOrReference: string) {
    return schemaForm(await this.#schemaRow(idOrReference))
  }

  async schemas(q: Page & { name?: string }) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const { total, rows } = await storeRepo.schemas(this.deps.db, q.name ? { name: q.name } : {}, {
      page,
      limit,
    })
    return { data: rows.map(schemaForm), total, pages: Math.ceil(total / limit), page, limit }
  }

  async #schemaRow(idOrReference: string) {
    const row = await storeRepo.schema(this.deps.db, idOrReference)
    if (!row) throw errors.notFound('collection schema')
    return row
  }

  // --- records ---

  async create(userId: string, reference: string, body: Record<string, unknown>) {
    const schema = await this.#schemaRow(reference)
    const fields = schema.fields as FieldDefinition[]
    const data = checkRecord(fields, body, false)
    const isPrivate = privacyOf(body, false)
    const id = newId()
    await inTransaction(this.deps.db, async (tx) => {
      await this.#unique(tx, schema.id, fields, data, null)
      await storeRepo.insertRecord(tx, {
        id,
        schemaId: schema.id,
        ownerId: userId,
        data,
        isPrivate,
        now: this.deps.clock.now(),
      })
    })
    return this.one(userId, reference, id)
  }

  async update(userId: string, reference: string, id: string, body: Record<string, unknown>) {
    const schema = await this.#schemaRow(reference)
    const fields = schema.fields as FieldDefinition[]
    await inTransaction(this.deps.db, async (tx) => {
      const row = await storeRepo.record(tx, schema.id, id, true)
      if (!row || (row.isPrivate && row.ownerId !== userId)) throw errors.notFound('record')
      if (row.ownerId !== userId) throw errors.forbidden('Only the record’s owner may change it')
      const patch = checkRecord(fields, body, true)
      const merged = Object.fromEntries(
        Object.entries({ ...(row.data as Record<string, unknown>), ...patch }).filter(([, v]) => v !== null),
      )
      // The whole record must still fit the schema (its fields may have changed since).
      const data = checkRecord(fields, merged, false)
      await this.#unique(tx, schema.id, fields, data, id)
      await storeRepo.updateRecord(
        tx,
        id,
        { data, isPrivate: privacyOf(body, row.isPrivate) },
        this.deps.clock.now(),
      )
    })
    return this.one(userId, reference, id)
  }

  async remove(userId: string, reference: string, id: string) {
    const schema = await this.#schemaRow(reference)
    await inTransaction(this.deps.db, async (tx) => {
      const row = await storeRepo.record(tx, schema.id, id, true)
      if (!row || (row.isPrivate && row.ownerId !== userId)) throw errors.notFound('record')
      if (row.ownerId !== userId) throw errors.forbidden('Only the record’s owner may delete it')
      await storeRepo.deleteRecord(tx, id)
    })
    return {}
  }

  async one(userId: string, reference: string, id: string) {
    const schema = await this.#schemaRow(reference)
    const row = await storeRepo.record(this.deps.db, schema.id, id)
    if (!row || (row.isPrivate && row.ownerId !== userId)) throw errors.notFound('record')
    return recordForm(row)
  }

  async list(userId: string, reference: string, query: Record<string, unknown>) {
    const { schema, page, limit, equals } = await this.#listArgs(reference, query)
    const { total, rows } = await storeRepo.records(
      this.deps.db,
      schema.id,
      { viewerId: userId, equals },
      { page, limit },
    )
    return { data: rows.map(recordForm), total, pages: Math.ceil(total / limit), page, limit }
  }

  async count(userId: string, reference: string, query: Record<string, unknown>) {
    const { schema, equals } = await this.#listArgs(reference, query)
    return storeRepo.count(this.deps.db, schema.id, { viewerId: userId, equals })
  }

  /** page, limit and the field filters of a list query (an unknown field is 400). */
  async #listArgs(reference: string, query: Record<string, unknown>) {
    const schema = await this.#schemaRow(reference)
    const names = new Set((schema.fields as FieldDefinition[]).map((f) => f.name))
    const { page, limit, ...rest } = query as { page?: number; limit?: number } & Record<string, unknown>
    const equals: Record<string, string> = {}
    for (const [k, v] of Object.entries(rest)) {
      if (!names.has(k)) throw errors.field(`/${k}`, 'not a field of this schema')
      equals[k] = String(v)
    }
    return { schema, page: page ?? 1, limit: limit ?? 12, equals }
  }

  async #unique(
    tx: Parameters<typeof storeRepo.taken>[0],
    schemaId: string,
    fields: FieldDefinition[],
    data: Record<string, unknown>,
    exceptId: string | null,
  ) {
    for (const f of fields) {
      if (!f.unique || data[f.name] === undefined) continue
      if (await storeRepo.taken(tx, schemaId, f.name, String(data[f.name]), exceptId))
        throw errors.named('RECORD_VALUE_TAKEN', `Another record already has this ${f.name}`)
    }
  }
}

function privacyOf(body: Record<string, unknown>, current: boolean) {
  const v = body.isPrivate
  if (v === undefined) return current
  if (typeof v !== 'boolean') throw errors.field('/isPrivate', 'must be true or false')
  return v
}
