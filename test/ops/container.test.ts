// The container files without a container engine: .ci/check-container.mjs passes on the repository
// and fails on broken copies; the environments compose.yaml gives the API, the worker and the dev
// chain are accepted by the configuration as production (or the dev chain) requires; the platform
// keys are the dev chain accounts it funds; the health check script answers as Docker reads it.
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig, loadDevchainConfig } from '../../src/config.ts'
import { devPrivateKeys } from '../../src/platform/chain/devnet.ts'
import { freePort } from '../main/support.ts'
import { run, tempDirs } from './support.ts'

const root = join(import.meta.dirname, '..', '..')
const dirs = tempDirs()
afterAll(() => dirs.cleanup())

async function check(dir = root): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [join(root, '.ci/check-container.mjs'), dir])
    return { code: 0, out: stdout }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: `${e.stdout}${e.stderr}` }
  }
}

/** A copy of the build context with one file changed. */
function brokenCopy(file: 'Dockerfile' | 'compose.yaml', change: (text: string) => string): string {
  const dir = dirs.make('wp-container-')
  for (const name of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'src',
    'scripts',
  ])
    symlinkSync(join(root, name), join(dir, name))
  cpSync(join(root, 'deploy'), join(dir, 'deploy'), { recursive: true })
  for (const name of ['Dockerfile', 'compose.yaml', '.dockerignore'])
    cpSync(join(root, name), join(dir, name))
  writeFileSync(join(dir, file), change(readFileSync(join(root, file), 'utf8')))
  return dir
}

/**
 * compose.yaml as `docker compose` reads it with nothing set in the shell: `${VAR:-default}` is
 * its default, and every environment value is a string (an empty value is '').
 */
function compose(): any {
  const text = readFileSync(join(root, 'compose.yaml'), 'utf8').replace(/\$\{\w+:-([^}]*)\}/g, '$1')
  const doc = parse(text, { merge: true })
  for (const svc of Object.values<any>(doc.services))
    if (svc.environment)
      svc.environment = Object.fromEntries(
        Object.entries(svc.environment).map(([k, v]) => [k, v === null ? '' : String(v)]),
      )
  return doc
}

describe('container files', () => {
  it('pass the Dockerfile lint, the image rules and the Compose schema', async () => {
    const r = await check()
    expect(r.out).toContain('pass')
    expect(r.code).toBe(0)
  })

  it.each([
    ['a root user', 'Dockerfile', (t: string) => t.replace(/^USER node$/m, 'USER root'), /non-root USER/],
    [
      'a shell-form entry point',
      'Dockerfile',
      (t: string) => t.replace(/^ENTRYPOINT .*$/m, 'ENTRYPOINT node dist/main.js'),
      /exec form/,
    ],
    [
      'a misspelt instruction',
      'Dockerfile',
      (t: string) => t.replace(/^WORKDIR/m, 'WRKDIR'),
      /Dockerfile:\d+:/,
    ],
    [
      'a missing COPY source',
      'Dockerfile',
      (t: string) => t.replace('COPY src src', 'COPY lib lib'),
      /COPY lib/,
    ],
    ['no health check', 'Dockerfile', (t: string) => t.replace(/^HEALTHCHECK .*$/m, ''), /HEALTHCHECK/],
    [
      'the prepare script npm ci runs not copied before it',
      'Dockerfile',
      (t: string) => t.replace(/^COPY scripts\/prepare\.mjs .*$/gm, ''),
      /scripts\/prepare\.mjs \(run by npm ci\) is not copied/,
    ],
    [
      'an unknown service key',
      'compose.yaml',
      (t: string) => t.replace('  redis:\n', '  redis:\n    restrat: always\n'),
      /compose\.yaml\/services\/redis/,
    ],
    [
      'a port of the wrong type',
      'compose.yaml',
      (t: string) => t.replace('- "9001:9001"', '- [9001]'),
      /compose\.yaml/,
    ],
    [
      'a dependency on no service',
      'compose.yaml',
      (t: string) =>
        t.replace(
          '      mail:\n        condition: service_started',
          '      smtp:\n        condition: service_started',
        ),
      /depends on unknown service smtp/,
    ],
  ] as const)('fail with %s', async (_what, file, change, message) => {
    const r = await check(brokenCopy(file, change))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(message)
  })

  it('give the API and the worker a configuration production accepts, and the dev chain its own', () => {
    const services = compose().services
    for (const name of ['api', 'worker']) {
      const env = services[name].environment as Record<string, string>
      expect(env.NODE_ENV).toBe('production')
      const config = loadConfig(env)
      expect(config.production).toBe(true)
      expect(config.s3?.bucket).toBe('workpay-files')
      expect(config.evmRpcUrl).toBe('http://devchain:8545')
    }
    expect(loadConfig(services.worker.environment).workerPort).toBe(9100)
    const dev = loadDevchainConfig(services.devchain.environment)
    expect(dev).toMatchObject({ host: '0.0.0.0', port: 8545, coinsOut: services.api.environment.COINS_FILE })
    // the platform keys are the dev chain's funded treasury and gas wallet
    expect(services.api.environment.TREASURY_PRIVATE_KEY).toBe(devPrivateKeys()[18])
    expect(services.api.environment.GAS_WALLET_PRIVATE_KEY).toBe(devPrivateKeys()[17])
    // the worker's health check asks its own ops port
    expect(services.worker.healthcheck.test).toContain(String(services.worker.environment.WORKER_PORT))
  })

  it('has a health check script that succeeds only on a healthy answer', async () => {
    let healthy = true
    const server = createServer((req, res) => {
      if (req.method === 'POST')
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":1,"result":"0x2"}')
      res.writeHead(healthy ? 200 : 503).end('{}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = String((server.address() as AddressInfo).port)
    const probe = async (...args: string[]) =>
      run(process.execPath, [join(root, 'deploy/healthcheck.mjs'), ...args]).then(
        () => 0,
        (e: { code: number }) => e.code,
      )
    try {
      expect(await probe(port)).toBe(0)
      expect(await probe('--rpc', port)).toBe(0)
      healthy = false
      expect(await probe(port)).toBe(1)
      expect(await probe(String(await freePort()))).toBe(1)
    } finally {
      server.close()
    }
  })
})
