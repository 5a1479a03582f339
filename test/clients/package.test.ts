// The published client as a user gets it: `npm pack` of clients/typescript (built to ESM and type
// declarations), installed into an empty folder like any dependency, type-checked there with
// ordinary compiler settings (no TypeScript-only import flags), then run against the service: it
// signs up, verifies the email, logs in, reads the account, and branches on an error's code.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { lastCode, uniqueEmail } from '../helpers/factories.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))
const clientDir = join(root, 'clients/typescript')
const tsc = join(root, 'node_modules/typescript/bin/tsc')

let t: TestApp
let baseUrl: string
let consumer: string

beforeAll(async () => {
  t = await createTestApp()
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  consumer = mkdtempSync(join(tmpdir(), 'wp-client-user-'))
  // Built and packed as `npm pack` does it (the package's prepack script is its build).
  await run(process.execPath, [tsc, '-p', join(clientDir, 'tsconfig.build.json')])
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', consumer], { cwd: clientDir })
  const tarball = readdirSync(consumer).find((f) => f.endsWith('.tgz'))!
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  )
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`], {
    cwd: consumer,
  })
}, 300_000)

afterAll(async () => {
  await t?.close()
  if (consumer) rmSync(consumer, { recursive: true, force: true })
})

const PROGRAM = `
import { createWorkPayClient, errorCode, describeError, type ErrorCode, type User } from '@workpay/client'

const [baseUrl, email, step, code, tempToken] = process.argv.slice(2) as [string, string, string, string?, string?]
const password = 'Str0ng!pass'
let token: string | undefined
const api = createWorkPayClient({ baseUrl, token: () => token })

if (step === 'sign-up') {
  const res = await api.POST('/v1/auth/create-account', {
    body: { firstName: 'Ada', lastName: 'Lovelace', email, password, confirmPassword: password },
  })
  if (!res.data) throw new Error(describeError(res.error))
  console.log(JSON.stringify({ tempToken: res.data.data.tempToken.token }))
} else {
  const verified = await api.POST('/v1/auth/account/verify', { body: { token: code!, tempToken: tempToken! } })
  if (!verified.data) throw new Error(describeError(verified.error))
  const login = await api.POST('/v1/auth/login', { body: { email, password } })
  if (!login.data) throw new Error(describeError(login.error))
  const session = login.data.data
  if ('twoFaRequired' in session) throw new Error('two-factor')
  token = session.token
  const me = await api.GET('/v1/account')
  if (!me.data) throw new Error(describeError(me.error))
  const user: User = me.data.data
  const missing = await api.GET('/v1/collection/{id}', { params: { path: { id: 'ffffffffffffffffffffffff' } } })
  const failure: ErrorCode | undefined = errorCode(missing.error)
  const branch = failure === 'NOT_FOUND' ? 'not-found branch' : 'other branch'
  console.log(JSON.stringify({ email: user.email, branch, status: missing.response.status }))
}
`

describe('the client package', () => {
  it('type-checks in a project of its own with ordinary settings', async () => {
    writeFileSync(join(consumer, 'program.ts'), PROGRAM)
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          strict: true,
          outDir: 'out',
          skipLibCheck: false,
          types: [],
        },
        files: ['program.ts', 'globals.d.ts'],
      }),
    )
    writeFileSync(join(consumer, 'globals.d.ts'), 'declare const process: { argv: string[] }\n')
    const { stdout } = await run(process.execPath, [tsc, '-p', consumer]).catch((err) => {
      throw new Error(`tsc: ${err.stdout}${err.stderr}`)
    })
    expect(stdout).toBe('')
    // A mistyped path is a compile error naming the path, not "Expected 2 arguments".
    writeFileSync(
      join(consumer, 'wrong.ts'),
      "import { createWorkPayClient } from '@workpay/client'\nawait createWorkPayClient({ baseUrl: '' }).GET('/v1/acount')\n",
    )
    const wrong = await run(
      process.execPath,
      [
        tsc,
        '--noEmit',
        '--strict',
        '--module',
        'NodeNext',
        '--target',
        'ES2022',
        '--lib',
        'ES2023,DOM',
        'wrong.ts',
      ],
      {
        cwd: consumer,
      },
    ).catch((err: { stdout: string }) => err)
    expect(String((wrong as { stdout: string }).stdout)).toMatch(/'"\/v1\/acount"'/)
  })

  it('signs up, verifies, logs in, reads the account and branches on an error code against the service', async () => {
    const email = uniqueEmail('client')
    const node = (...args: string[]) =>
      run(process.execPath, [join(consumer, 'out/program.js'), baseUrl, email, ...args])
    const signUp = JSON.parse((await node('sign-up')).stdout)
    const code = await lastCode(t, email)
    const out = JSON.parse((await node('verify', code, signUp.tempToken)).stdout)
    expect(out).toEqual({ email, branch: 'not-found branch', status: 404 })
  })

  it('ships verifyReserves with its dependencies: the format vector, and a report against the service', async () => {
    // the proof of reserves' own tests run it against snapshots and tampered copies (test/reserves)
    writeFileSync(
      join(consumer, 'reserves.mjs'),
      `import { reservesLeafHash, verifyReserves } from '@workpay/client'
const hash = reservesLeafHash(new Uint8Array(32).fill(1), 'user:alice', 100n)
const report = await verifyReserves({ baseUrl: process.argv[2], token: 'not-a-token', rpcUrl: process.argv[2] })
console.log(JSON.stringify({ hash: Buffer.from(hash).toString('hex'), ok: report.ok, problems: report.problems }))
`,
    )
    const out = JSON.parse((await run(process.execPath, [join(consumer, 'reserves.mjs'), baseUrl])).stdout)
    expect(out.hash).toBe('ab8e9693c5f8231c78dd054cab75ecc7321dad0e2a261343fa394bcd6de37c3a')
    expect(out.ok).toBe(false)
    expect(out.problems).toEqual([expect.stringMatching(/^GET \/v1\/account: HTTP 401 [A-Z_]+$/)])
  })
})
