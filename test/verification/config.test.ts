// The identity-verification settings as loadConfig reads them: KYC_REQUIRED_FOR rules, the Veriff
// keys (both or neither), the provider choice; and which rule applies to a withdrawal.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { ruleFor } from '../../src/modules/verification/requirement.ts'
import { TEST_ENV } from '../helpers/app.ts'

// (generated secrets are written into DATA_DIR: a directory of this file's own)
const dataDir = mkdtempSync(join(tmpdir(), 'wp-verif-config-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
const load = (env: Record<string, string>) => loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, ...env })
const problems = (env: Record<string, string>) => {
  try {
    load(env)
  } catch (err) {
    if (err instanceof ConfigError) return err.problems
    throw err
  }
  return []
}

describe('verification settings', () => {
  it('defaults to the operator review, nothing required', () => {
    expect(load({}).verification).toEqual({
      provider: 'operator',
      veriff: undefined,
      mediaMaxBytes: 5 * 1024 * 1024,
      maxAttempts: 5,
      requiredFor: [],
    })
  })

  it('reads Veriff and the rules', () => {
    const v = load({
      VERIFF_API_KEY: 'key',
      VERIFF_SHARED_SECRET: 'secret',
      VERIFF_BASE_URL: 'https://veriff.example/',
      KYC_REQUIRED_FOR: 'withdrawal:USDC>1000, withdrawal>5,withdrawal:avax',
    }).verification
    expect(v.provider).toBe('veriff')
    expect(v.veriff).toEqual({ apiKey: 'key', sharedSecret: 'secret', baseUrl: 'https://veriff.example' })
    expect(v.requiredFor).toEqual([
      { action: 'withdrawal', coin: 'usdc', above: '1000' },
      { action: 'withdrawal', coin: undefined, above: '5' },
      { action: 'withdrawal', coin: 'avax', above: undefined },
    ])
    expect(
      load({ VERIFF_API_KEY: 'k', VERIFF_SHARED_SECRET: 's', VERIFICATION_PROVIDER: 'operator' }).verification
        .provider,
    ).toBe('operator')
  })

  it('reports every bad value', () => {
    expect(problems({ VERIFF_API_KEY: 'only-the-key' })).toEqual([
      'VERIFF_API_KEY and VERIFF_SHARED_SECRET go together: set both or neither',
    ])
    expect(problems({ VERIFICATION_PROVIDER: 'veriff' })).toEqual([
      'VERIFICATION_PROVIDER=veriff needs VERIFF_API_KEY and VERIFF_SHARED_SECRET',
    ])
    expect(problems({ VERIFICATION_PROVIDER: 'somebody' })[0]).toMatch(/VERIFICATION_PROVIDER must be/)
    const bad = problems({ KYC_REQUIRED_FOR: 'withdrawal>-1,deposit,withdrawal:usdc>1e3' })
    expect(bad).toHaveLength(3)
    for (const p of bad) expect(p).toMatch(/^KYC_REQUIRED_FOR must be rules like/)
    expect(problems({ VERIFICATION_MEDIA_MAX_BYTES: '10' })[0]).toMatch(
      /VERIFICATION_MEDIA_MAX_BYTES must be an integer/,
    )
  })
})

describe('which rule applies', () => {
  const usdc = { reference: 'usdc', symbol: 'USDC', decimals: 6 }
  const rules = [
    { action: 'withdrawal' as const, coin: 'usdc', above: '1000' },
    { action: 'withdrawal' as const, coin: undefined, above: '5000' },
  ]
  it('compares in base units, above the amount only', () => {
    expect(ruleFor(rules, { action: 'withdrawal', coin: usdc, amount: 1000_000000n })).toBeUndefined()
    expect(ruleFor(rules, { action: 'withdrawal', coin: usdc, amount: 1000_000001n })).toEqual(rules[0])
    const avax = { reference: 'avax', symbol: 'AVAX', decimals: 18 }
    expect(ruleFor(rules, { action: 'withdrawal', coin: avax, amount: 5000n * 10n ** 18n })).toBeUndefined()
    expect(ruleFor(rules, { action: 'withdrawal', coin: avax, amount: 5000n * 10n ** 18n + 1n })).toEqual(
      rules[1],
    )
    expect(
      ruleFor([{ action: 'withdrawal', coin: undefined, above: undefined }], {
        action: 'withdrawal',
        coin: avax,
        amount: 1n,
      }),
    ).toBeTruthy()
  })
})
