// Named statements for the few hot calls whose text never changes: PostgreSQL parses, analyses
// and plans such a statement once per connection instead of on every call. Only calls of the
// database functions registered here are named (`select … from <function>(…)`, a text the repo
// builds the same way every time); every other statement stays unnamed and is planned with its
// values. A connection keeps its named statements until it closes, so a process that outlives a
// migration changing such a function's signature or answer must be restarted (as after any
// migration). Behind a pooler in transaction mode, the pooler must track named statements
// (PgBouncer 1.21 or later with max_prepared_statements set).

const functions = new Set<string>()
/** statement text → name, for the texts already named in this process */
const names = new Map<string, string>()
/** bound on distinct named texts: a caller building the call's text in many ways stops being named */
const MAX_NAMES = 64
const CALL = /^\s*select\b[^;]*?\bfrom\s+([a-z_][a-z0-9_]*)\s*\(/

/** Calls of `fn` (`select … from fn(…)`) go out as named statements. */
export function registerPreparedFunction(fn: string): void {
  functions.add(fn)
}

/** The name a statement goes out under, or undefined for an unnamed one. */
export function statementName(text: string): string | undefined {
  for (const fn of functions) {
    if (!text.includes(fn)) continue
    const known = names.get(text)
    if (known !== undefined) return known
    if (CALL.exec(text)?.[1] !== fn || names.size >= MAX_NAMES) return undefined
    const name = `wp_${fn}_${names.size}`
    names.set(text, name)
    return name
  }
  return undefined
}
