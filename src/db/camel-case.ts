// Column and table names: camelCase in the code, snake_case in the database, as Kysely's
// CamelCasePlugin maps them (nested objects' keys kept), at less cost:
// - Names are written in snake case as the query is compiled (SnakeCaseCompiler), instead of the
//   plugin copying the query's whole tree to rename its identifiers before compiling it (again for
//   each subquery built in another). Every identifier passes through the compiler, so the SQL is
//   the same.
// - A result's rows are renamed by a function compiled for their shape (src/db/row-shapes.ts).
import {
  CamelCasePlugin,
  type Dialect,
  type IdentifierNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely'
import { Shapes } from './row-shapes.ts'

type CamelRowBuild = (row: UnknownRow) => UnknownRow

/**
 * Kysely's CamelCasePlugin with nested objects' keys kept, whose names the compiler writes in
 * snake case (see `snakeCaseIdentifiers`), renaming a result's rows by a function compiled for
 * their shape. The rows of one result share one shape (each driver builds them from one row
 * description), so the first row's keys name them all.
 */
export class CamelCase extends CamelCasePlugin {
  readonly #shapes = new Shapes<CamelRowBuild>(
    (names) =>
      new Function(
        'r',
        `return {${names.map((n) => `${JSON.stringify(this.camelCase(n))}: r[${JSON.stringify(n)}]`).join(', ')}}`,
      ) as CamelRowBuild,
  )

  constructor() {
    super({ maintainNestedObjectKeys: true })
  }

  /** The database's name of a name in the code. */
  readonly toSnake = (name: string): string => this.snakeCase(name)

  /** The query as built: the compiler writes its names in snake case. */
  override transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node
  }

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows
    if (!Array.isArray(rows) || rows.length === 0) return args.result
    const shape = this.#shapes.get(Object.keys(rows[0]!))
    if (!shape) return super.transformResult(args)
    const out = new Array<UnknownRow>(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = shape(rows[i]!)
    return { ...args.result, rows: out }
  }
}

/** PostgreSQL's compiler, writing every identifier in snake case. */
class SnakeCaseCompiler extends PostgresQueryCompiler {
  constructor(private readonly toSnake: (name: string) => string) {
    super()
  }

  protected override compileUnwrappedIdentifier(node: IdentifierNode): void {
    if (typeof node.name === 'string') this.append(this.sanitizeIdentifier(this.toSnake(node.name)))
    else super.compileUnwrappedIdentifier(node)
  }
}

/** `dialect`, its identifiers written in snake case as `plugin` names them (`plugin` renames the rows). */
export function snakeCaseIdentifiers(dialect: Dialect, plugin: CamelCase): Dialect {
  return {
    createDriver: () => dialect.createDriver(),
    createQueryCompiler: () => new SnakeCaseCompiler(plugin.toSnake),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  }
}
