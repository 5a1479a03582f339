// The attestation address published in the coins file (`chain.reservesAttestationAddress`): read and
// checked at start-up (a key that is not the published address's refuses to start), and the
// verifier script takes it from the file with `--coins-file`.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reservesAttestationOfCoinsFile } from '../../clients/typescript/verify-reserves.ts'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import {
  builtinCoinsConfig,
  CoinsConfigError,
  parseCoinsConfig,
} from '../../src/platform/chain/coins-config.ts'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, openTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'

const run = promisify(execFile)
const key = `0x${randomBytes(32).toString('hex')}` as const
const address = privateKeyToAccount(key).address
const dir = mkdtempSync(join(tmpdir(), 'wp-reserves-coins-'))
const coinsFile = (attestation: unknown) => {
  const file = join(dir, `coins-${randomBytes(4).toString('hex')}.json`)
  const doc = builtinCoinsConfig()
  writeFileSync(
    file,
    JSON.stringify({ ...doc, chain: { ...doc.chain, reservesAttestationAddress: attestation } }),
  )
  return file
}

let t: TestApp
let alice: TestUser
let rpc: string
let url: string
const runTag = runId()

beforeAll(async () => {
  // the address as an operator would paste it: checksummed
  t = await createTestApp({
    env: { ...adminEnv(runTag), RESERVES_ATTESTATION_KEY: key, COINS_FILE: coinsFile(address) },
  })
  const admin = await createAdmin(t, runTag)
  alice = await createUser(t)
  await t.req({ method: 'GET', url: '/v1/wallet', token: alice.token })
  expectOk(
    await t.req({
      method: 'POST',
      url: '/v1/admin/reserves/snapshot',
      token: admin.token,
      payload: { reason: 'published address test' },
    }),
  )
  rpc = await t.app.services.chain.devnet!.listen(0)
  url = await t.app.listen({ port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await t?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the coins file', () => {
  it('takes an address (stored lower case) and refuses anything else', () => {
    const doc = builtinCoinsConfig()
    const parsed = parseCoinsConfig(
      { ...doc, chain: { ...doc.chain, reservesAttestationAddress: address } },
      false,
    )
    expect(parsed.chain.reservesAttestationAddress).toBe(address.toLowerCase())
    expect(parseCoinsConfig(doc, false).chain.reservesAttestationAddress).toBeUndefined()
    for (const bad of ['0x1234', 42, 'attestation'])
      expect(() =>
        parseCoinsConfig({ ...doc, chain: { ...doc.chain, reservesAttestationAddress: bad } }, false),
      ).toThrow(/chain\.reservesAttestationAddress must be an address/)
    expect(() =>
      parseCoinsConfig({ ...doc, chain: { ...doc.chain, reservesAttestationAddress: '0x12' } }, false),
    ).toThrow(CoinsConfigError)
  })

  it('the service signs with the key of the published address', async () => {
    const res = await t.req({ method: 'GET', url: '/v1/reserves' })
    const { snapshots } = res.json().data
    expect(snapshots.length).toBeGreaterThan(0)
    for (const s of snapshots) expect(s.attestationAddress).toBe(address.toLowerCase())
  })

  it('a service whose key is not the published address refuses to start, naming both', async () => {
    const database = await openTestDatabase()
    const dataDir = mkdtempSync(join(tmpdir(), 'wp-test-data-'))
    try {
      const other = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address
      const config = loadConfig({
        ...TEST_ENV,
        DATA_DIR: dataDir,
        RESERVES_ATTESTATION_KEY: key,
        COINS_FILE: coinsFile(other),
      })
      await expect(buildApp({ config, database, logger: false })).rejects.toThrow(
        new RegExp(
          `RESERVES_ATTESTATION_KEY is the key of ${address.toLowerCase()}, but COINS_FILE publishes ${other.toLowerCase()}`,
        ),
      )
    } finally {
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('the verifier with the coins file', () => {
  const script = (...extra: string[]) =>
    run(process.execPath, [
      'clients/verify-reserves/verify.mjs',
      '--url',
      url,
      '--token',
      alice.token,
      '--rpc',
      rpc,
      ...extra,
    ]).catch((err) => err as { code: number; stdout: string; stderr: string })

  it('passes with the file that publishes the service key', async () => {
    const out = await script('--coins-file', coinsFile(address))
    expect(out.stdout).toContain('balance included, reserves ≥ liabilities')
  })

  it('fails with a file that publishes another address, or none, or with a different --attestation', async () => {
    const other = privateKeyToAccount(`0x${randomBytes(32).toString('hex')}`).address
    const wrong: any = await script('--coins-file', coinsFile(other))
    expect(wrong.code).toBe(1)
    expect(wrong.stdout).toMatch(/not by the published key/)
    const none: any = await script('--coins-file', coinsFile(undefined))
    expect(none.code).toBe(1)
    expect(none.stdout).toMatch(/publishes no chain\.reservesAttestationAddress/)
    const both: any = await script('--coins-file', coinsFile(address), '--attestation', other)
    expect(both.code).toBe(1)
    expect(both.stdout).toMatch(/is not the address the coins file publishes/)
  })

  it('the client package reads the address from the file', () => {
    const doc = builtinCoinsConfig()
    expect(
      reservesAttestationOfCoinsFile({
        ...doc,
        chain: { ...doc.chain, reservesAttestationAddress: address },
      }),
    ).toBe(address.toLowerCase())
    expect(() => reservesAttestationOfCoinsFile(doc)).toThrow(
      /publishes no chain\.reservesAttestationAddress/,
    )
  })
})
