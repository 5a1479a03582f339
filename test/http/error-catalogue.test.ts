// The error catalogue: every code has a status, a meaning and an action, is defined once, is listed
// in docs/errors.md with its status, is what the OpenAPI document names per operation, and is
// asserted by a test that provokes it through the HTTP API. The generic CONFLICT and BUSINESS_RULE
// are thrown only where the API contract fixes them, always with the named code as `data.reason`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES, ERROR_STATUS } from '../../src/http/errors.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const root = join(import.meta.dirname, '../..')
const codes = Object.keys(ERROR_CODES)

function filesUnder(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...filesUnder(path))
    else if (path.endsWith('.ts')) out.push(path)
  }
  return out
}

/**
 * The generic codes stay only where the API contract fixes them: an email already taken, an escrow
 * already released, two-factor already on (409 CONFLICT); a withdrawal below its minimum and the
 * release of an escrow not paid yet (422 BUSINESS_RULE).
 */
const CONTRACT_SITES = [
  ['src/modules/auth/service.ts', 'conflict', 'This email is already registered'],
  ['src/modules/auth/web3-service.ts', 'conflict', 'This email is already registered'],
  ['src/modules/account/service.ts', 'conflict', 'This email is already registered'],
  ['src/modules/account/security.ts', 'conflict', 'Two-factor authentication is already on'],
  ['src/modules/account/security.ts', 'conflict', 'Two-factor authentication is already on'],
  ['src/modules/escrow/release.ts', 'conflict', 'This escrow has already been released'],
  ['src/modules/escrow/release.ts', 'conflict', 'This escrow has already been released'],
  ['src/modules/escrow/release.ts', 'businessRule', 'The escrow has not been paid yet'],
  ['src/modules/withdrawals/service.ts', 'businessRule', 'The smallest withdrawal is '],
].map((s) => s.join(' | '))

describe('the error catalogue', () => {
  it('gives every code an HTTP error status, a one-line meaning and what to do', () => {
    expect(codes.length).toBeGreaterThan(100)
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code, code).toMatch(/^[A-Z][A-Z0-9_]*$/)
      expect(info.status, code).toBeGreaterThanOrEqual(400)
      expect(info.status, code).toBeLessThan(600)
      expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS], code).toBe(info.status)
      for (const line of [info.description, info.action]) {
        expect(line.trim().length, code).toBeGreaterThan(3)
        expect(line, code).not.toMatch(/\n/)
      }
    }
  })

  it('defines each code in exactly one list', () => {
    const dir = join(root, 'src/http/error-codes')
    const seen = new Map<string, string[]>()
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), 'utf8')
      for (const m of text.matchAll(/^ {2}([A-Z][A-Z0-9_]*): code\(/gm))
        seen.set(m[1]!, [...(seen.get(m[1]!) ?? []), file])
    }
    for (const code of codes) expect(seen.get(code), code).toHaveLength(1)
  })

  it('lists every code in docs/errors.md with its status', () => {
    const doc = readFileSync(join(root, 'docs/errors.md'), 'utf8')
    for (const [code, info] of Object.entries(ERROR_CODES))
      expect(doc, `${code} is documented`).toContain(`| \`${code}\` | ${info.status} |`)
  })

  it('throws CONFLICT and BUSINESS_RULE only where the API contract fixes them', () => {
    const found: string[] = []
    for (const file of filesUnder(join(root, 'src'))) {
      if (file.endsWith('src/http/errors.ts')) continue // the factories themselves
      const text = readFileSync(file, 'utf8')
      const rel = file.slice(root.length + 1)
      for (const m of text.matchAll(/errors\.(conflict|businessRule)\(\s*['`"]([^'`"]*)/g))
        found.push([rel, m[1], m[2]!.replace(/\$\{.*$/, '')].join(' | '))
      for (const m of text.matchAll(/new AppError\(\s*'(CONFLICT|BUSINESS_RULE)'/g))
        found.push(`${rel} | ${m[1]}`)
    }
    const allowed = [...CONTRACT_SITES]
    const extra = found.filter((site) => {
      const i = allowed.findIndex((a) => site.startsWith(a))
      if (i < 0) return true
      allowed.splice(i, 1)
      return false
    })
    expect(extra).toEqual([])
  })

  it('has every code a client can get asserted by a test that provokes it over HTTP', () => {
    // Codes no request can provoke on purpose: METHOD_NOT_ALLOWED (listed for clients; the router
    // answers an unknown method with NOT_FOUND), a crash, states reached only in a race or a broken invariant (a test cannot make the ledger
    // hold less than the legs it planned, nor land between two locked reads), and guards behind
    // earlier checks (a payer is never the receiver: #13 and applications refuse it first; an
    // account with a permanent token has a verified email).
    const unprovokable = new Set([
      'METHOD_NOT_ALLOWED',
      'INTERNAL',
      'ESCROW_UNDERFUNDED',
      'ESCROW_NOT_RELEASABLE',
      'ESCROW_LEG_NOT_FAILED',
      'IDEMPOTENCY_KEY_IN_PROGRESS',
      'ESCROW_SELF_RELEASE',
      'ACCOUNT_HAS_NO_EMAIL',
    ])
    const tests = filesUnder(join(root, 'test'))
      .filter((f) => !f.endsWith('error-catalogue.test.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n')
    const asserted = (code: string) =>
      new RegExp(
        `(expectError\\([^;]*|code: |reason: |\\.toBe\\(|\\.toEqual\\(\\[[^\\]]*)'${code}'`,
        's',
      ).test(tests)
    const missing = codes.filter((code) => !unprovokable.has(code) && !asserted(code))
    expect(missing).toEqual([])
  })
})

describe('the OpenAPI document', () => {
  let t: TestApp
  let doc: Record<string, any>
  beforeAll(async () => {
    t = await createTestApp()
    doc = (await t.req({ method: 'GET', url: '/openapi.json' })).json()
  })
  afterAll(() => t.close())

  it('lists the codes each operation answers, each a code of the catalogue with its status', () => {
    let operations = 0
    for (const item of Object.values<Record<string, any>>(doc.paths))
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
        operations++
        const listed: string[] = op['x-error-codes']
        expect(Array.isArray(listed), op.operationId).toBe(true)
        const byStatus: string[] = []
        for (const [status, response] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue
          const media = response.content?.['application/json']
          const enumerated: string[] = media.schema.allOf[1].properties.data.properties.code.enum
          expect(enumerated.sort(), `${op.operationId} ${status}`).toEqual(Object.keys(media.examples).sort())
          for (const code of enumerated) {
            expect(codes, `${op.operationId}: ${code}`).toContain(code)
            expect(
              String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]),
              `${op.operationId}: ${code}`,
            ).toBe(status)
          }
          byStatus.push(...enumerated)
        }
        expect([...listed].sort(), op.operationId).toEqual([...new Set(byStatus)].sort())
      }
    expect(operations).toBeGreaterThan(50)
    expect(doc.components.schemas.ErrorEnvelope.properties.data.properties.code.enum.sort()).toEqual(
      [...codes].sort(),
    )
  })
})
