// The `keys` command as an operator runs it: over the service's configuration (an embedded
// database in DATA_DIR here), `status` counts the values per key id, `rotate` re-seals them under
// KEY_ENCRYPTION_KEY_ID, `verify` opens them all; a reused key id and bad usage are refused.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPGlite } from '../../src/db/index.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createSecretBox } from '../../src/platform/crypto/secrets.ts'

const run = promisify(execFile)
const K1 = '11'.repeat(32)
const K2 = '22'.repeat(32)
let dataDir: string

async function keys(args: string[], env: Record<string, string>) {
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/keys.ts', ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        DATA_DIR: dataDir,
        JWT_SECRET: 'cli-test-secret-cli-test-secret-0123',
        LOG_LEVEL: 'silent',
        ...env,
      },
    })
    return { code: 0, out: stdout }
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string }
    return { code: e.code, out: e.stdout + e.stderr }
  }
}

const rotated = {
  KEY_ENCRYPTION_KEY: K2,
  KEY_ENCRYPTION_KEY_ID: 'k2',
  KEY_ENCRYPTION_KEYS_PREVIOUS: `k1:${K1}`,
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'wp-keys-cli-'))
  const database = await openPGlite({ dataDir: join(dataDir, 'pg') })
  await migrateToLatest(database.db)
  const box = createSecretBox({ k1: Buffer.from(K1, 'hex') }, 'k1')
  for (let i = 0; i < 3; i++) {
    const pk = generatePrivateKey()
    const address = privateKeyToAddress(pk).toLowerCase()
    await database.db
      .insertInto('walletKeys')
      .values({
        id: newId(),
        ownerKind: 'treasury',
        ownerId: `cli-${i}`,
        address,
        sealedKey: box.seal(pk, `wallet-key:${address}`),
        createdAt: new Date(),
      })
      .execute()
  }
  await database.close()
}, 60_000)
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('npm run keys', () => {
  it('status, rotate, status, verify', async () => {
    const before = await keys(['status'], rotated)
    expect(before.code).toBe(0)
    expect(before.out).toContain('wallet_keys.sealed_key   k1: 3')
    expect(before.out).toContain('key id k1: 3 value(s) still sealed under it')

    const rotation = await keys(['rotate', '--batch-size', '2'], rotated)
    expect(rotation.code, rotation.out).toBe(0)
    expect(rotation.out).toContain('wallet_keys.sealed_key: 2/3 re-sealed')
    expect(rotation.out).toContain('wallet_keys.sealed_key: 3/3 re-sealed')
    expect(rotation.out).toContain('key id k1: 0 value(s) (can be retired)')

    // The old key retired: everything opens with the new one alone.
    const retired = { KEY_ENCRYPTION_KEY: K2, KEY_ENCRYPTION_KEY_ID: 'k2' }
    const verify = await keys(['verify'], retired)
    expect(verify.code, verify.out).toBe(0)
    expect(verify.out).toContain('3 sealed value(s) checked, 0 do not open')
  }, 120_000)

  it('refuses a key id reused for a new key, a missing database and bad usage', async () => {
    const reused = await keys(['rotate'], {
      KEY_ENCRYPTION_KEY: '33'.repeat(32),
      KEY_ENCRYPTION_KEY_ID: 'k2',
    })
    expect(reused.code).toBe(2)
    expect(reused.out).toContain('give the new key its own KEY_ENCRYPTION_KEY_ID')
    const wrongKey = await keys(['verify'], {
      KEY_ENCRYPTION_KEY: '33'.repeat(32),
      KEY_ENCRYPTION_KEY_ID: 'k2',
    })
    expect(wrongKey.code).toBe(1)
    expect(wrongKey.out).toContain('3 sealed value(s) checked, 3 do not open')
    const nowhere = await keys(['status'], { ...rotated, DATA_DIR: join(dataDir, 'missing') })
    expect(nowhere.code).toBe(2)
    expect(nowhere.out).toContain('no embedded database in')
    const usage = await keys(['spin'], rotated)
    expect(usage.code).toBe(2)
    expect(usage.out).toContain('usage: keys <status|rotate|verify|revoke-sessions>')
  }, 120_000)
})
