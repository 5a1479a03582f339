// Rows built by a function compiled once per shape (the list of column names a result has),
// instead of key by key. Two places build every row the service reads:
// - pg makes, for every result, a template object of every column name (filled one by one into a
//   null-prototype object, then copied), and, for every row, a copy of the template whose columns
//   it sets one by one by a computed name. For a page of wide rows, that was an eighth of the
//   list's CPU.
// - The camel-case renaming then copies each row again, key by key (src/db/camel-case.ts).
// Both run a function compiled for the shape, an object literal with the names written in it
// (`{ "creator_id": v[1] === null ? null : p[1](v[1]), … }`): nothing per result, one allocation
// per row.
// The rows are the same: the same keys in the same order (a later duplicate column's value over
// an earlier one's, at the earlier's place), the same values parsed by the same parsers. A shape
// that cannot be written so (a `__proto__` column, a binary column) or one past the bound of
// shapes kept is built the original way.
import { createRequire } from 'node:module'
import type { UnknownRow } from 'kysely'

/** bound on distinct shapes compiled per builder (a caller naming columns in many ways) */
const MAX_SHAPES = 2_000

/** Functions compiled per shape, keyed by the names joined (a name never holds a NUL). */
export class Shapes<F extends (...args: never[]) => unknown> {
  readonly #built = new Map<string, F | null>()
  constructor(private readonly compile: (names: readonly string[]) => F) {}

  get(names: readonly string[]): F | undefined {
    const key = names.join('\0')
    const known = this.#built.get(key)
    if (known !== undefined) return known ?? undefined
    if (this.#built.size >= MAX_SHAPES) return undefined
    const fit = names.every((n) => n !== '__proto__' && !n.includes('\0'))
    const built = fit ? this.compile(names) : null
    this.#built.set(key, built)
    return built ?? undefined
  }
}

type PgRowBuild = (
  values: readonly (string | null)[],
  parsers: readonly ((v: string) => unknown)[],
) => UnknownRow

/** pg's row of one shape: each value null or parsed by its column's parser. */
const pgRowShapes = new Shapes<PgRowBuild>(
  (names) =>
    new Function(
      'v',
      'p',
      `let x; return {${names.map((n, i) => `${JSON.stringify(n)}: (x = v[${i}]) === null ? null : p[${i}](x)`).join(', ')}}`,
    ) as PgRowBuild,
)

interface FieldDescription {
  name: string
  dataTypeID: number
  format?: string
}
interface TypeSource {
  getTypeParser(oid: number, format: string): (v: string) => unknown
}
interface PgResult {
  fields: FieldDescription[]
  _parsers: ((v: string) => unknown)[] | undefined
  _types: TypeSource | undefined
  rowAsArray: boolean
  _shape?: PgRowBuild | undefined
  addFields(fields: FieldDescription[]): void
  parseRow(values: (string | null)[]): unknown
}

let installed = false

/** pg's results build their object rows by shape (see above), in every pg client of the process. */
export function installPgRowShapes(): void {
  if (installed) return
  installed = true
  const require = createRequire(import.meta.url)
  const resultPath = require.resolve('pg/lib/result.js')
  const Result = require(resultPath) as { prototype: PgResult }
  const pgTypes = createRequire(resultPath)('pg-types') as TypeSource
  const { addFields, parseRow } = Result.prototype
  Result.prototype.addFields = function (this: PgResult, fields: FieldDescription[]) {
    const shape =
      this.rowAsArray || fields.some((f) => f.format === 'binary')
        ? undefined
        : pgRowShapes.get(fields.map((f) => f.name))
    this._shape = shape
    if (!shape) {
      addFields.call(this, fields)
      return
    }
    this.fields = fields
    const types = this._types ?? pgTypes
    const parsers = new Array<(v: string) => unknown>(fields.length)
    for (let i = 0; i < fields.length; i++) parsers[i] = types.getTypeParser(fields[i]!.dataTypeID, 'text')
    this._parsers = parsers
  }
  Result.prototype.parseRow = function (this: PgResult, values: (string | null)[]) {
    const shape = this._shape
    return shape ? shape(values, this._parsers!) : parseRow.call(this, values)
  }
}
