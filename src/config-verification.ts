// The identity-verification settings read by config.ts: which provider checks identities (the
// operators on the console, or Veriff), the Veriff integration's keys, the media limits, and which
// actions need a verified identity (KYC_REQUIRED_FOR).
/** An action that may need a verified identity: `coin` (a reference or symbol, any when absent) and
 * `above` (coin units, exclusive; every amount when absent). */
export interface KycRule {
  action: 'withdrawal'
  coin: string | undefined
  above: string | undefined
}

export interface VerificationConfig {
  /** `operator`: operators review the images on the console; `veriff`: Veriff decides */
  provider: 'operator' | 'veriff'
  veriff: { apiKey: string; sharedSecret: string; baseUrl: string } | undefined
  /** largest image accepted (bytes, decoded) */
  mediaMaxBytes: number
  /** verification sessions one account may start (a declined one counts) */
  maxAttempts: number
  /** the actions that need a verified identity */
  requiredFor: KycRule[]
}

export const KYC_ACTIONS = ['withdrawal'] as const
export const VERIFF_DEFAULT_BASE_URL = 'https://stationapi.veriff.com'

/**
 * KYC_REQUIRED_FOR: comma-separated rules `action[:coin][>amount]`, e.g.
 * `withdrawal:usdc>1000,withdrawal:avax>20` (amounts in coin units) or `withdrawal` (every one).
 */
export function kycRules(raw: string | undefined, problems: string[]): KycRule[] {
  if (raw === undefined) return []
  const rules: KycRule[] = []
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)(?::([A-Za-z0-9._-]+))?(?:>(\d+(?:\.\d+)?))?$/.exec(entry)
    if (!m || !(KYC_ACTIONS as readonly string[]).includes(m[1]!)) {
      problems.push(
        `KYC_REQUIRED_FOR must be rules like withdrawal:usdc>1000 (action[:coin][>amount], actions: ${KYC_ACTIONS.join(', ')}); got "${entry}"`,
      )
      continue
    }
    rules.push({ action: m[1] as KycRule['action'], coin: m[2]?.toLowerCase(), above: m[3] })
  }
  return rules
}

export function verificationConfig(
  problems: string[],
  read: {
    str: (name: string) => string | undefined
    int: (name: string, def: number, min: number, max: number) => number
    url: (name: string, protocols: string[]) => string | undefined
  },
  production: boolean,
): VerificationConfig {
  const apiKey = read.str('VERIFF_API_KEY')
  const sharedSecret = read.str('VERIFF_SHARED_SECRET')
  if ((apiKey === undefined) !== (sharedSecret === undefined))
    problems.push('VERIFF_API_KEY and VERIFF_SHARED_SECRET go together: set both or neither')
  const baseUrl = (
    read.url('VERIFF_BASE_URL', production ? ['https:'] : ['http:', 'https:']) ?? VERIFF_DEFAULT_BASE_URL
  ).replace(/\/+$/, '')
  const veriff = apiKey && sharedSecret ? { apiKey, sharedSecret, baseUrl } : undefined
  const chosen = read.str('VERIFICATION_PROVIDER')
  let provider: VerificationConfig['provider'] = veriff ? 'veriff' : 'operator'
  if (chosen !== undefined) {
    if (chosen !== 'operator' && chosen !== 'veriff')
      problems.push(`VERIFICATION_PROVIDER must be operator or veriff (got "${chosen}")`)
    else if (chosen === 'veriff' && !veriff)
      problems.push('VERIFICATION_PROVIDER=veriff needs VERIFF_API_KEY and VERIFF_SHARED_SECRET')
    else provider = chosen
  }
  return {
    provider,
    veriff,
    mediaMaxBytes: read.int('VERIFICATION_MEDIA_MAX_BYTES', 5 * 1024 * 1024, 1024, 17 * 1024 * 1024),
    maxAttempts: read.int('VERIFICATION_MAX_ATTEMPTS', 5, 1, 1000),
    requiredFor: kycRules(read.str('KYC_REQUIRED_FOR'), problems),
  }
}
