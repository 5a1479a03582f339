// The SQL of key rotation: sealed values read in batches by key id, written back one row at a time
// only while the row still holds what was read (compare-and-set), and counted per key id.
import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { SealedColumn } from './sealed-columns.ts'

export interface SealedRow {
  id: string
  sealed: string
  bound: string
}

// The key id is the second dot-separated field of a sealed value (`v1.<keyId>.…`).
const keyIdOf = (c: SealedColumn) => sql<string>`split_part(${sql.ref(c.column)}, '.', 2)`

/** The sealed rows of the column that match `filter`, up to `limit`, in id order after `after`. */
async function page(
  db: Kysely<any>,
  c: SealedColumn,
  filter: RawBuilder<unknown>,
  after: string | undefined,
  limit: number,
): Promise<SealedRow[]> {
  const { rows } = await sql<SealedRow>`
    select ${sql.ref(c.id)}::text as id, ${sql.ref(c.column)} as sealed, ${sql.ref(c.bound)}::text as bound
    from ${sql.table(c.table)}
    where ${sql.ref(c.column)} is not null
      ${filter}
      ${after === undefined ? sql`` : sql`and ${sql.ref(c.id)} > ${after}`}
    order by ${sql.ref(c.id)}
    limit ${limit}`.execute(db)
  return rows
}

/** Up to `limit` rows not sealed under `keyId`, in id order after `after`. */
export function rowsNotUnder(
  db: Kysely<any>,
  c: SealedColumn,
  keyId: string,
  after: string | undefined,
  limit: number,
): Promise<SealedRow[]> {
  return page(db, c, sql`and ${keyIdOf(c)} <> ${keyId}`, after, limit)
}

/** Up to `limit` rows of the column in id order after `after` (for verification). */
export function rowsAfter(
  db: Kysely<any>,
  c: SealedColumn,
  after: string | undefined,
  limit: number,
): Promise<SealedRow[]> {
  return page(db, c, sql``, after, limit)
}

/** One row sealed under `keyId`, if any. */
export async function oneUnder(
  db: Kysely<any>,
  c: SealedColumn,
  keyId: string,
): Promise<SealedRow | undefined> {
  const { rows } = await sql<SealedRow>`
    select ${sql.ref(c.id)}::text as id, ${sql.ref(c.column)} as sealed, ${sql.ref(c.bound)}::text as bound
    from ${sql.table(c.table)}
    where ${sql.ref(c.column)} is not null and ${keyIdOf(c)} = ${keyId}
    limit 1`.execute(db)
  return rows[0]
}

/**
 * Writes `next` where the row still holds `previous`; false when it changed meanwhile (a new TOTP
 * secret, a concurrent rotation): that row is left for the next pass.
 */
export async function compareAndSet(
  db: Kysely<any>,
  c: SealedColumn,
  id: string,
  previous: string,
  next: string,
): Promise<boolean> {
  const result = await sql`
    update ${sql.table(c.table)} set ${sql.ref(c.column)} = ${next}
    where ${sql.ref(c.id)} = ${id} and ${sql.ref(c.column)} = ${previous}`.execute(db)
  return Number(result.numAffectedRows ?? 0n) === 1
}

/** How many rows of the column each key id seals. */
export async function countByKeyId(db: Kysely<any>, c: SealedColumn): Promise<Record<string, number>> {
  const { rows } = await sql<{ keyId: string; n: number | string }>`
    select ${keyIdOf(c)} as key_id, count(*) as n
    from ${sql.table(c.table)}
    where ${sql.ref(c.column)} is not null
    group by 1 order by 1`.execute(db)
  return Object.fromEntries(rows.map((r) => [r.keyId, Number(r.n)]))
}
