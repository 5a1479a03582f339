// Every method of the public SDK's modules (as `dist/main.d.ts` declares them on `PaktSDK`) is
// called by a test (in this folder, or beside the feature it belongs to: test/social, test/work,
// ...): through `sdk.<module>.<method>(`, or through a local name for
// the module (`const uv = ctx.sdk.userVerification`). A new SDK method, or a test that stops
// calling one, fails here. Where the SDK's own call is broken, the test that covers it says so
// and shows what the SDK gets (collection.createMany, collectionSchema.create/update/delete).
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const dts = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('@pakt/sdk')), 'main.d.ts'),
  'utf8',
)

/** module property on PaktSDK → its declared methods */
function sdkMethods(): Map<string, string[]> {
  const start = dts.indexOf('declare class PaktSDK')
  const sdk = dts.slice(start, dts.indexOf('\n}', start))
  const out = new Map<string, string[]>()
  for (const [, prop, type] of sdk.matchAll(/^\s+(\w+): (\w+)ModuleType;/gm)) {
    const at = dts.indexOf(`declare class ${type}Module `)
    expect(at, `${type}Module is declared`).toBeGreaterThan(0)
    const body = dts.slice(at, dts.indexOf('\n}', at))
    const methods = [...body.matchAll(/^ {4}(\w+)\(/gm)].map((m) => m[1]!).filter((m) => m !== 'constructor')
    out.set(prop!, methods)
  }
  return out
}

/** `.<module>.<method>(` calls in the tests, aliases of modules resolved */
function calledMethods(): Set<string> {
  const called = new Set<string>()
  const tests = join(here, '..')
  const files = readdirSync(tests, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
  for (const file of files) {
    const text = readFileSync(join(tests, file), 'utf8')
    for (const [, prop, method] of text.matchAll(/\bsdk\.(\w+)\.(\w+)\(/g)) called.add(`${prop}.${method}`)
    for (const [, alias, prop] of text.matchAll(/\bconst (\w+) = [\w.]*\bsdk\.(\w+)\s*$/gm))
      for (const [, method] of text.matchAll(new RegExp(`\\b${alias}\\.(\\w+)\\(`, 'g')))
        called.add(`${prop}.${method}`)
  }
  return called
}

describe('the public SDK, method by method', () => {
  it('every method of every module is called by a test', () => {
    const methods = sdkMethods()
    expect(methods.size).toBeGreaterThanOrEqual(18)
    const all = [...methods].flatMap(([prop, ms]) => ms.map((m) => `${prop}.${m}`))
    expect(all.length).toBeGreaterThanOrEqual(95)
    const called = calledMethods()
    expect(all.filter((m) => !called.has(m))).toEqual([])
  })
})
