// Settlement owns the custodial keys and the deposit watcher and calls no module above it: no file
// under src/modules/settlement imports the wallet module (types included), and a built app's
// outgoing sender signs with settlement's key store and registers with settlement's watcher.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const modules = fileURLToPath(new URL('../../src/modules/', import.meta.url))

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** Every module path a file imports or re-exports (static, dynamic and `import('…')` types). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [
    ...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ].map((m) => m[1]!)
  return specs.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s))
}

describe('settlement owns its keys and watcher', () => {
  it('no file of settlement imports the wallet module', () => {
    const wallet = join(modules, 'wallet')
    const files = tsFiles(join(modules, 'settlement'))
    expect(files.length).toBeGreaterThan(40)
    const offending = files.flatMap((f) =>
      importsOf(f)
        .filter((target) => target === wallet || target.startsWith(`${wallet}/`))
        .map((target) => `${relative(modules, f)} → ${relative(modules, target)}`),
    )
    expect(offending).toEqual([])
  })

  describe('in a built app', () => {
    let t: TestApp
    beforeAll(async () => {
      t = await createTestApp()
    })
    afterAll(() => t?.close())

    it('the outgoing sender is handed settlement’s key store and watcher, nothing of the wallet', () => {
      const s = t.app.services
      const deps = s.outgoing.deps as unknown as Record<string, unknown>
      expect(deps.keys).toBe(s.keys)
      expect(deps.watcher).toBe(s.settlement.watcher)
      expect(Object.values(deps)).not.toContain(s.wallets)
    })
  })
})
