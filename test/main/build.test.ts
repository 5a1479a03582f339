// The production build: `npm run build` compiles src/ into dist/, and `node dist/main.js` on the
// embedded defaults serves the same API as the source run through tsx (same OpenAPI paths, same
// answers). Built once; both processes run side by side. With TEST_DB=postgres each process gets
// a PostgreSQL database of its own.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Child, getJson, run, spawnService, stopService, tempDirs } from '../ops/support.ts'
import { serviceDatabase, signUp, withoutGenerated } from './support.ts'

const root = join(import.meta.dirname, '..', '..')
const dirs = tempDirs()
const drops: Array<() => Promise<void>> = []
let source: Child
let built: Child

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

async function startBoth() {
  const [dbA, dbB] = await Promise.all([serviceDatabase(), serviceDatabase()])
  drops.push(dbA.drop, dbB.drop)
  ;[source, built] = await Promise.all([
    spawnService(['--import', 'tsx', 'src/main.ts'], { DATA_DIR: dirs.make(), ...dbA.env }),
    spawnService(['dist/main.js'], { DATA_DIR: dirs.make(), ...dbB.env }),
  ])
}

beforeAll(async () => {
  await run('npm', ['run', 'build', '--silent'], { cwd: root, maxBuffer: 16 * 1024 * 1024 }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      throw new Error(`npm run build failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`)
    },
  )
  await startBoth()
}, 400_000)

afterAll(async () => {
  await Promise.all([source, built].filter(Boolean).map((c) => stopService(c)))
  for (const drop of drops) await drop()
  dirs.cleanup()
})

describe('the built service', () => {
  it('dist/ holds compiled JavaScript, every migration and the JSON assets', () => {
    const dist = join(root, 'dist')
    const files = filesUnder(dist)
    expect(files.some((f) => f.endsWith('.ts'))).toBe(false)
    expect(existsSync(join(dist, 'main.js'))).toBe(true)
    expect(existsSync(join(dist, 'platform/chain/contracts/DevToken.json'))).toBe(true)
    const migrations = (dir: string, ext: string) =>
      readdirSync(dir)
        .filter((f) => f.endsWith(ext) && /^\d{4}-/.test(f))
        .map((f) => f.slice(0, -ext.length))
        .sort()
    expect(migrations(join(dist, 'db/migrations'), '.js')).toEqual(
      migrations(join(root, 'src/db/migrations'), '.ts'),
    )
  })

  it('runs under plain node: the log names its own process, health and readiness answer', async () => {
    const started = built.lines.find((l) => l.includes('"msg":"started"'))
    expect(started).toBeDefined()
    for (const c of [source, built]) {
      const health = await getJson(`${c.baseUrl}/health`)
      expect(health.status).toBe(200)
      const ready = await getJson(`${c.baseUrl}/ready`)
      expect(ready.status, JSON.stringify(ready.body)).toBe(200)
    }
  })

  it('serves exactly the OpenAPI paths and operations of the source', async () => {
    const ops = async (c: Child) => {
      const doc = await getJson(`${c.baseUrl}/openapi.json`)
      expect(doc.status).toBe(200)
      return Object.entries(doc.body.paths as Record<string, Record<string, { operationId?: string }>>)
        .flatMap(([path, methods]) =>
          Object.entries(methods).map(([m, op]) => `${m} ${path} ${op.operationId}`),
        )
        .sort()
    }
    const [fromSource, fromBuild] = await Promise.all([ops(source), ops(built)])
    expect(fromSource.length).toBeGreaterThan(40)
    expect(fromBuild).toEqual(fromSource)
  })

  it('answers public routes the same as the source', async () => {
    for (const path of ['/v1/payment/coins', '/v1/payment-public/coins', '/v1/no-such-route']) {
      const [a, b] = await Promise.all([
        getJson(`${source.baseUrl}${path}`),
        getJson(`${built.baseUrl}${path}`),
      ])
      expect(b.status, path).toBe(a.status)
      expect(withoutGenerated(b.body), path).toEqual(withoutGenerated(a.body))
    }
  })

  it('signs up, verifies by the mailed code and answers the account as the source does', async () => {
    const shape = async (c: Child) => {
      const { token } = await signUp(c)
      const account = await getJson(`${c.baseUrl}/v1/account`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(account.status).toBe(200)
      const wallet = await getJson(`${c.baseUrl}/v1/wallet`, {
        headers: { authorization: `Bearer ${token}` },
      })
      expect(wallet.status).toBe(200)
      return {
        account: Object.keys(account.body.data).sort(),
        wallets: wallet.body.data.wallets.map((w: { coin: string; amount: string }) => [w.coin, w.amount]),
      }
    }
    const [a, b] = await Promise.all([shape(source), shape(built)])
    expect(b).toEqual(a)
    expect(b.account).toContain('email')
  })

  it('stops on SIGTERM with status 0', async () => {
    expect(await stopService(built)).toBe(0)
  })
})
