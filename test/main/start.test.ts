// `npm start`'s compiled sources (scripts/compile-sources.mjs, scripts/start.mjs): a bundle that
// keeps each module's place for the files it reads and the migrations, compiled once per state of
// the sources (and again when they change, the oldest states removed); the real service started
// that way on a new data directory, unpacked from the migrated or the cluster template, serving the same API as
// the sources run through tsx, stopping on SIGTERM; and production refused the same way.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import * as esbuild from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import { compiledSources, EXTERNAL, KEEP } from '../../scripts/compile-sources.mjs'
import { migrationsDigest } from '../../src/db/migrate.ts'
import { migratedTemplateFile } from '../../src/db/migrated-template.ts'
import { type Child, getJson, run, spawnService, stopService, tempDirs } from '../ops/support.ts'
import { exited, SECRETS, serviceDatabase, withoutGenerated } from './support.ts'

const root = join(import.meta.dirname, '..', '..')
const dirs = tempDirs()
const children: Child[] = []
const drops: Array<() => Promise<void>> = []
afterAll(async () => {
  await Promise.all(children.map((c) => stopService(c).catch(() => {})))
  for (const drop of drops) await drop()
  dirs.cleanup()
})

/** A small source tree in the shape of src/, with the repository's packages beside it. */
function fixture(): string {
  const dir = dirs.make('wp-start-src-')
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, 'src', path, '..'), { recursive: true })
    writeFileSync(join(dir, 'src', path), text)
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  write(
    'main.ts',
    `import { sql } from 'kysely'
import pino from 'pino'
import { info } from './lib/read.ts'
import { migrations } from './db/list.ts'
const later = await import('./lib/later.ts')
console.log(JSON.stringify({ info: info(), migrations: migrations(), kysely: typeof sql, pino: typeof pino, later: later.value, text: later.text }))
`,
  )
  write(
    'lib/read.ts',
    `import { readFileSync } from 'node:fs'
export const info = (): unknown => JSON.parse(readFileSync(new URL('./data/info.json', import.meta.url), 'utf8'))
`,
  )
  write('lib/data/info.json', '{ "kept": "beside its module" }\n')
  // characters outside ASCII in a string (escaped by esbuild) and in comments (kept by it)
  write(
    'lib/later.ts',
    `export const value: number = 42\nexport const text = 'naïve — ✓ 𝑊'\nexport class Kept {\n  /** esbuild keeps a class member's comment — 𝑊 × 2 */\n  m(): number {\n    return 1\n  }\n}\n`,
  )
  write(
    'db/list.ts',
    `import { readdirSync } from 'node:fs'
export const migrations = (): string[] => readdirSync(new URL('./migrations/', import.meta.url)).filter((f) => f.endsWith('.js')).sort()
`,
  )
  for (const name of ['0001-first', '0002-second'])
    write(`db/migrations/${name}.ts`, `export async function up(): Promise<void> {}\n`)
  return dir
}

describe('the compiled sources', () => {
  it('bundle the sources with their files in place, once per state of the sources', async () => {
    const dir = fixture()
    const cache = join(dir, 'cache')
    const first = await compiledSources({ root: dir, esbuild, cache })
    expect(first.compiled).toBe(true)
    const { stdout } = await run(process.execPath, [join(first.out, 'main.js')])
    expect(JSON.parse(stdout)).toEqual({
      info: { kept: 'beside its module' },
      migrations: ['0001-first.js', '0002-second.js'],
      kysely: 'function',
      pino: 'function',
      later: 42,
      text: 'naïve — ✓ 𝑊',
    })
    // V8 keeps a module's source two bytes a character if one is outside ASCII
    for (const f of readdirSync(first.out, { recursive: true }).map(String))
      if (f.endsWith('.js'))
        expect(readFileSync(join(first.out, f), 'utf8'), f).not.toMatch(/[\u0080-\u{10ffff}]/u)

    const again = await compiledSources({ root: dir, esbuild, cache })
    expect(again).toEqual({ out: first.out, compiled: false })

    // each change of the sources is a state of its own; the oldest beyond the last few go
    const outs = [first.out]
    for (let i = 0; i <= KEEP; i++) {
      writeFileSync(join(dir, 'src', 'lib', 'later.ts'), `export const value: number = ${100 + i}\n`)
      const next = await compiledSources({ root: dir, esbuild, cache })
      expect(next.compiled).toBe(true)
      expect(outs).not.toContain(next.out)
      outs.push(next.out)
    }
    const { stdout: changed } = await run(process.execPath, [join(outs.at(-1)!, 'main.js')])
    expect(JSON.parse(changed).later).toBe(100 + KEEP)
    const kept = readdirSync(join(outs[0]!, '..'))
    expect(kept.sort()).toEqual(
      outs
        .slice(-KEEP)
        .map((o) => o.split('/').at(-1))
        .sort(),
    )
  })

  it('leave native, WebAssembly and configured-only packages to node_modules', () => {
    for (const name of [
      '@electric-sql/pglite',
      'hardhat',
      '@node-rs/argon2',
      '@aws-sdk/*',
      'nodemailer',
      'ioredis',
    ])
      expect(EXTERNAL).toContain(name)
  })
})

describe('npm start', () => {
  it('serves on a new data directory what the sources serve, and stops on SIGTERM', {
    timeout: 300_000,
  }, async () => {
    const [dbA, dbB] = await Promise.all([serviceDatabase(), serviceDatabase()])
    drops.push(dbA.drop, dbB.drop)
    const started = await spawnService(['scripts/start.mjs'], { DATA_DIR: dirs.make(), ...dbA.env })
    children.push(started)
    const source = await spawnService(['--import', 'tsx', 'src/main.ts'], {
      DATA_DIR: dirs.make(),
      ...dbB.env,
    })
    children.push(source)

    const health = await getJson(`${started.baseUrl}/health`)
    expect(health.status).toBe(200)
    const ready = await getJson(`${started.baseUrl}/ready`)
    expect(ready.status, JSON.stringify(ready.body)).toBe(200)
    if (dbA.env.DATABASE_URL === undefined) {
      // From the migrated template when npm ci's prepare script made one for these compiled
      // migrations (their digest), else from the cluster template.
      const { out } = await compiledSources({ root, esbuild })
      const migrations = pathToFileURL(join(out, 'db', 'migrations', '/'))
      const kept = existsSync(migratedTemplateFile(migrationsDigest(migrations)))
      const opened = started.lines.find((l) => l.includes('using embedded PostgreSQL'))
      expect(opened).toContain(kept ? 'from the migrated template' : 'from the cluster template')
    }
    const line = started.lines.find((l) => l.includes('"msg":"started"'))
    expect(JSON.parse(line!).startupMs).toMatchObject({
      imports: expect.any(Number),
      total: expect.any(Number),
    })

    const ops = async (c: Child) => {
      const doc = await getJson(`${c.baseUrl}/openapi.json`)
      expect(doc.status).toBe(200)
      return doc.body
    }
    const [fromStart, fromSource] = await Promise.all([ops(started), ops(source)])
    expect(Object.keys(fromStart.paths).length).toBeGreaterThan(40)
    expect(fromStart).toEqual(fromSource)
    for (const path of ['/v1/payment-public/coins', '/v1/no-such-route', '/admin']) {
      const [a, b] = await Promise.all([
        getJson(`${started.baseUrl}${path}`),
        getJson(`${source.baseUrl}${path}`),
      ])
      expect(a.status, path).toBe(b.status)
      expect(withoutGenerated(a.body), path).toEqual(withoutGenerated(b.body))
    }
    expect(await stopService(started)).toBe(0)
  })

  it('refuses production without its variables, opening nothing', async () => {
    const dir = dirs.make()
    const child = execFile(process.execPath, ['scripts/start.mjs'], {
      cwd: root,
      env: { PATH: process.env.PATH!, NODE_ENV: 'production', DATA_DIR: dir, ...SECRETS },
    })
    let out = ''
    child.stdout!.on('data', (d) => {
      out += d
    })
    child.stderr!.on('data', (d) => {
      out += d
    })
    expect(await exited(child)).toBe(2)
    for (const name of ['DATABASE_URL', 'EVM_RPC_URL', 'SMTP_URL', 'PUBLIC_URL']) expect(out).toContain(name)
    expect(readdirSync(dir)).toEqual([])
  })
})
