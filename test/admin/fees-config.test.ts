// Cold addresses of fee sweeps: FEE_SWEEP_ADDRESS and FEE_SWEEP_ADDRESS_<COIN> checked when the
// configuration is read, then at start-up against the coins and the platform's own addresses (the
// process exits with status 2 like for any configuration error); a coin without one, and a cold
// address that became a custodial address, are refused at sweep time.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { devPrivateKeys, devTokenAddress } from '../../src/platform/chain/devnet.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, openTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { freshAddress } from '../withdrawals/helpers.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

const base = { ...TEST_ENV, DATA_DIR: '/tmp/wp-fees-config' }
const TREASURY = privateKeyToAddress(devPrivateKeys()[18]!)
const GAS_WALLET = privateKeyToAddress(devPrivateKeys()[17]!)

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env })
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

describe('reading the cold addresses', () => {
  it('takes one address for every coin and one per coin, lower-cased', () => {
    const every = freshAddress()
    const usdc = freshAddress()
    const c = loadConfig({ ...base, FEE_SWEEP_ADDRESS: every, FEE_SWEEP_ADDRESS_USDC: usdc })
    expect(c.feeSweepAddresses).toEqual({ '*': every.toLowerCase(), usdc: usdc.toLowerCase() })
    expect(loadConfig(base).feeSweepAddresses).toEqual({})
  })

  it('reports every malformed one at once', () => {
    const problems = problemsOf({
      FEE_SWEEP_ADDRESS: '0x1234',
      FEE_SWEEP_ADDRESS_AVAX: `0x${'0'.repeat(40)}`,
      FEE_SWEEP_ADDRESS_usdc: freshAddress(),
    })
    expect(problems).toHaveLength(3)
    const text = problems.join('\n')
    expect(text).toMatch(/FEE_SWEEP_ADDRESS must be an EVM address/)
    expect(text).toMatch(/FEE_SWEEP_ADDRESS_AVAX must be an EVM address .* not the zero address/)
    expect(text).toMatch(/FEE_SWEEP_ADDRESS_usdc: a per-coin cold address is FEE_SWEEP_ADDRESS_<COIN>/)
  })

  it('refuses a mixed-case address whose EIP-55 checksum is wrong', () => {
    const good = privateKeyToAddress(devPrivateKeys()[3]!)
    expect(problemsOf({ FEE_SWEEP_ADDRESS: good })).toEqual([])
    // flip the case of one letter of the checksummed address
    const i = [...good].findIndex((ch, n) => n > 1 && /[a-fA-F]/.test(ch))
    const flipped =
      good.slice(0, i) +
      (good[i] === good[i]!.toLowerCase() ? good[i]!.toUpperCase() : good[i]!.toLowerCase()) +
      good.slice(i + 1)
    expect(problemsOf({ FEE_SWEEP_ADDRESS: flipped })).toEqual([
      'FEE_SWEEP_ADDRESS: the address checksum (EIP-55 mixed case) is wrong',
    ])
  })
})

describe('at start-up', () => {
  it('refuses a variable naming no coin and an address of the platform’s own, every problem at once', async () => {
    const database = await openTestDatabase()
    const dataDir = mkdtempSync(join(tmpdir(), 'wp-fees-config-'))
    try {
      const config = loadConfig({
        ...base,
        DATA_DIR: dataDir,
        FEE_SWEEP_ADDRESS_DOGE: freshAddress(),
        FEE_SWEEP_ADDRESS: TREASURY,
        FEE_SWEEP_ADDRESS_AVAX: GAS_WALLET,
        FEE_SWEEP_ADDRESS_USDC: devTokenAddress(0),
      })
      const err = await buildApp({ config, database, clock: new ManualClock(), logger: false }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(ConfigError)
      const text = (err as ConfigError).problems.join('\n')
      expect(text).toMatch(
        /FEE_SWEEP_ADDRESS_DOGE names no configured coin \(per-coin variables: FEE_SWEEP_ADDRESS_AVAX, FEE_SWEEP_ADDRESS_USDC\)/,
      )
      expect(text).toMatch(/FEE_SWEEP_ADDRESS cannot be .*: it is the platform's treasury/)
      expect(text).toMatch(/FEE_SWEEP_ADDRESS_AVAX cannot be .*: it is the platform's gas wallet/)
      expect(text).toMatch(/FEE_SWEEP_ADDRESS_USDC cannot be .*: it is the contract of USDC/)
      expect((err as ConfigError).problems).toHaveLength(4)
    } finally {
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it('stops the service with exit status 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wp-fees-main-'))
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          ...TEST_ENV,
          NODE_ENV: 'development',
          DATA_DIR: dataDir,
          PORT: '0',
          LOG_LEVEL: 'error',
          FEE_SWEEP_ADDRESS_DOGE: freshAddress(),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let out = ''
      child.stdout!.on('data', (d) => {
        out += d
      })
      child.stderr!.on('data', (d) => {
        out += d
      })
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      expect(code, out).toBe(2)
      expect(out).toContain('FEE_SWEEP_ADDRESS_DOGE names no configured coin')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('at sweep time', () => {
  let t: TestApp
  let admin: TestUser
  const run = runId()
  const coldAvax = freshAddress().toLowerCase()
  const reason = 'Quarterly sweep'

  beforeAll(async () => {
    t = await createTestApp({ env: { ...adminEnv(run), FEE_SWEEP_ADDRESS_AVAX: coldAvax } })
    admin = await createAdmin(t, run)
  })
  afterAll(() => t?.close())

  const sweep = (coin: string) =>
    t.req({ method: 'POST', url: '/v1/admin/fees/sweep', token: admin.token, payload: { coin, reason } })

  it('shows a coin without a cold address and refuses to sweep it', async () => {
    const { coins } = expectOk(await t.req({ method: 'GET', url: '/v1/admin/fees', token: admin.token }))
    expect(
      coins.map((c: { coin: string; coldAddress: string | null; coldAddressSource: string | null }) => [
        c.coin,
        c.coldAddress,
        c.coldAddressSource,
      ]),
    ).toEqual([
      ['avax', coldAvax, 'FEE_SWEEP_ADDRESS_AVAX'],
      ['usdc', null, null],
    ])
    const res = await sweep('usdc')
    expectError(res, 422, 'NO_COLD_ADDRESS')
    expect(res.json().data).toMatchObject({ cause: 'NO_COLD_ADDRESS' })
    expect(res.json().message).toMatch(/FEE_SWEEP_ADDRESS_USDC/)
  })

  it('never sweeps to a custodial address of the platform', async () => {
    await t.database.db
      .insertInto('walletKeys')
      .values({
        id: newId(),
        ownerKind: 'treasury',
        ownerId: `collision-${run}`,
        address: coldAvax,
        sealedKey: 'not-a-key',
        createdAt: new Date(),
      })
      .execute()
    try {
      const res = await sweep('avax')
      expectError(res, 422, 'COLD_ADDRESS_REFUSED')
      expect(res.json().data).toMatchObject({ cause: 'COLD_ADDRESS_REFUSED' })
      expect(res.json().message).toMatch(/custodial address of the platform/)
      expect(await auditRows(t, 'fee.sweep')).toEqual([])
    } finally {
      await t.database.db.deleteFrom('walletKeys').where('address', '=', coldAvax).execute()
    }
  })
})
