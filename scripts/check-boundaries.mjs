// Module boundaries: a file under src/modules/<a>/ reaches another module <b> only through
// src/modules/<b>/module.ts (what it builds and the functions it offers) or src/modules/<b>/types.ts
// (the types, schemas and constants other modules may name). Any other import of <b>'s files is a
// violation: `npm run lint` runs this and fails on one (docs/architecture.md, "Module boundaries").
//
//   node scripts/check-boundaries.mjs        lists the violations, exit 1 when there is one
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The files another module may import. */
export const ENTRY_FILES = ['module', 'types']

/**
 * Imports allowed for now, as `<importing file> -> <imported file>` (paths from the checkout's root).
 * Each must name why and what removes it; an entry that no longer matches an import fails the check
 * too, so the list only shrinks.
 */
export const ALLOWED = []

// Static imports and re-exports (`import … from '…'`, `export … from '…'`), side-effect imports
// (`import '…'`) and dynamic ones (`import('…')`) of a relative path.
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else if (entry.name.endsWith('.ts')) yield path
  }
}

/**
 * Every import across a module boundary that does not go through the target's module.ts or
 * types.ts, as { file, target, specifier } with paths relative to `root`, `target` without suffix.
 */
export function boundaryViolations(root) {
  const modules = join(root, 'src', 'modules')
  const found = []
  for (const path of sources(modules)) {
    const file = relative(root, path).split(sep).join('/')
    const from = relative(modules, path).split(sep)[0]
    const text = readFileSync(path, 'utf8')
    for (const [, specifier] of text.matchAll(SPECIFIERS)) {
      const target = relative(modules, normalize(join(dirname(path), specifier))).split(sep)
      const to = target[0]
      if (target.length < 2 || to === '..' || to === from) continue
      const folder = join(modules, to)
      if (!existsSync(folder) || !statSync(folder).isDirectory()) continue
      const rest = target
        .slice(1)
        .join('/')
        .replace(/\.(ts|js)$/, '')
      if (ENTRY_FILES.includes(rest)) continue
      found.push({ file, target: `src/modules/${to}/${rest}`, specifier })
    }
  }
  return found
}

/** The violations not on the allowed list, and the allowed entries that match no import any more. */
export function checkBoundaries(root, allowed = ALLOWED) {
  const found = boundaryViolations(root)
  const key = (v) => `${v.file} -> ${v.target}`
  const keys = new Set(found.map(key))
  return {
    violations: found.filter((v) => !allowed.includes(key(v))),
    stale: allowed.filter((entry) => !keys.has(entry)),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const { violations, stale } = checkBoundaries(root)
  for (const v of violations) {
    console.error(`${v.file}: imports '${v.specifier}' (${v.target}); use its module.ts or types.ts`)
  }
  for (const entry of stale)
    console.error(`scripts/check-boundaries.mjs: allowed entry matches nothing: ${entry}`)
  if (violations.length || stale.length) {
    console.error(
      `${violations.length} import(s) across module boundaries, ${stale.length} stale allowed entr(ies)`,
    )
    process.exit(1)
  }
  console.log('module boundaries: ok')
}
