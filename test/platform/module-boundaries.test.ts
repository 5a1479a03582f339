// Module boundaries (scripts/check-boundaries.mjs, run by `npm run lint`): a module imports another
// only through its module.ts or types.ts. The check over this checkout finds nothing, and over a
// made-up tree it finds each kind of import that crosses a boundary elsewhere.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { boundaryViolations, checkBoundaries } from '../../scripts/check-boundaries.mjs'

const root = join(import.meta.dirname, '../..')
const scratch = mkdtempSync(join(tmpdir(), 'boundaries-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function tree(files: Record<string, string>) {
  const dir = mkdtempSync(join(scratch, 'tree-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

describe('module boundaries', () => {
  it('no module of this checkout imports another module other than through its module.ts or types.ts', () => {
    const { violations, stale } = checkBoundaries(root)
    expect(violations.map((v) => `${v.file} -> ${v.target}`)).toEqual([])
    expect(stale).toEqual([])
  })

  it('finds static, type-only, re-exported, side-effect and dynamic imports of another module’s files', () => {
    const dir = tree({
      'src/modules/a/service.ts': [
        "import { x } from '../b/service.ts'",
        "import type { Y } from '../b/deep/repo.js'",
        "export { z } from '../b/schemas.ts'",
        "import '../b/setup.ts'",
        "const later = () => import('../b/jobs.ts')",
        "import { ok } from '../b/module.ts'",
        "import type { Fine } from '../b/types.ts'",
        "import { own } from './repo.ts'",
        "import { core } from '../core.ts'",
        "import { db } from '../../db/index.ts'",
      ].join('\n'),
      'src/modules/a/repo.ts': '',
      'src/modules/b/module.ts': '',
      'src/modules/core.ts': '',
    })
    expect(boundaryViolations(dir).map((v) => v.target)).toEqual([
      'src/modules/b/service',
      'src/modules/b/deep/repo',
      'src/modules/b/schemas',
      'src/modules/b/setup',
      'src/modules/b/jobs',
    ])
  })

  it('an allowed import passes, and an allowed entry that matches no import fails as stale', () => {
    const dir = tree({
      'src/modules/a/x.ts': "import { y } from '../b/y.ts'",
      'src/modules/b/y.ts': '',
    })
    expect(checkBoundaries(dir, ['src/modules/a/x.ts -> src/modules/b/y'])).toEqual({
      violations: [],
      stale: [],
    })
    expect(checkBoundaries(dir, ['src/modules/a/x.ts -> src/modules/b/z']).stale).toEqual([
      'src/modules/a/x.ts -> src/modules/b/z',
    ])
  })
})
