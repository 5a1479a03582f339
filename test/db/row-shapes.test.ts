// pg's rows built by shape (src/db/row-shapes.ts) are the rows pg's own code builds, checked
// against the same result read as arrays: values of every kind, NULLs, duplicate and odd column
// names, and the results built the original way (a `__proto__` column, binary results, rows read
// as arrays).
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { installPgRowShapes } from '../../src/db/row-shapes.ts'
import { scratchPostgres } from '../helpers/postgres.ts'
import { WIDE } from './support.ts'

/** pg's object row as its own code builds it: each name once at its first place, the last value kept. */
function expectedRows(fields: { name: string }[], arrays: unknown[][]): Record<string, unknown>[] {
  return arrays.map((values) => {
    const row: Record<string, unknown> = {}
    fields.forEach((f, i) => {
      row[f.name] = values[i]
    })
    return row
  })
}

describe.runIf(inject('testDb') === 'postgres')("pg's rows by shape", () => {
  let scratch: Awaited<ReturnType<typeof scratchPostgres>>
  let client: pg.Client
  beforeAll(async () => {
    installPgRowShapes()
    scratch = await scratchPostgres('wp_rows')
    client = new pg.Client({ connectionString: scratch.url })
    await client.connect()
  })
  afterAll(async () => {
    await client?.end()
    await scratch?.drop()
  })

  it('builds the rows pg builds: the same keys in the same order, the same values', async () => {
    const asObjects = await client.query(WIDE)
    const asArrays = await client.query({ text: WIDE, rowMode: 'array' })
    const expected = expectedRows(asArrays.fields, asArrays.rows)
    expect(asObjects.rows).toEqual(expected)
    expect(asObjects.rows.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)))
    expect(asObjects.rows[0]).toMatchObject({ id_count: 2, tag_ids: ['x', 'y,z'], last_name: null })
    expect(asObjects.fields.map((f) => f.name)).toContain('?column?')
  })

  it('builds a `__proto__` column the original way', async () => {
    const { rows } = await client.query(`select 1 as "__proto__", 2 as b`)
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype)
    expect(Object.keys(rows[0])).toEqual(['__proto__', 'b'])
    expect(rows[0].b).toBe(2)
  })

  it('leaves binary results and rows read as arrays to pg', async () => {
    // pg's option for results in binary format (not in its published types)
    const inBinary = {
      text: 'select 7::int4 as n, $1::text as t',
      values: ['x'],
      binary: true,
    } as pg.QueryConfig
    const binary = await client.query(inBinary)
    expect(binary.rows).toHaveLength(1)
    expect(Object.keys(binary.rows[0])).toEqual(['n', 't'])
    expect(binary.rows[0]).toEqual({ n: 7, t: 'x' })
    const arrays = await client.query({ text: 'select 1 as a, null::text as b', rowMode: 'array' })
    expect(arrays.rows).toEqual([[1, null]])
  })
})
