// Readers of single environment variables for config.ts: each trims, parses and checks one value
// and, when it is wrong, notes why in `problems` and answers the default, so that every bad
// variable is reported at once.
import { isAddress } from 'viem'

export type Env = Record<string, string | undefined>

/** The readers of `env`, each noting its problems in `problems`. */
export function envReader(env: Env, problems: string[]) {
  const str = (name: string): string | undefined => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? undefined : v.trim()
  }
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name)
    if (raw === undefined) return def
    const n = Number(raw)
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`)
      return def
    }
    return n
  }
  const num = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name)
    if (raw === undefined) return def
    const n = Number(raw)
    if (!Number.isFinite(n) || n < min || n > max) {
      problems.push(`${name} must be a number between ${min} and ${max} (got "${raw}")`)
      return def
    }
    return n
  }
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name)
    if (raw === undefined) return def
    if (/^(1|true|yes|on)$/i.test(raw)) return true
    if (/^(0|false|no|off)$/i.test(raw)) return false
    problems.push(`${name} must be true or false (got "${raw}")`)
    return def
  }
  const url = (name: string, protocols: string[]): string | undefined => {
    const raw = str(name)
    if (raw === undefined) return undefined
    try {
      const u = new URL(raw)
      if (!protocols.includes(u.protocol)) throw new Error('protocol')
      return raw
    } catch {
      problems.push(`${name} must be a URL with one of ${protocols.join(', ')}`)
      return undefined
    }
  }
  const privateKey = (name: string): `0x${string}` | undefined => {
    const raw = str(name)
    if (raw === undefined) return undefined
    const hex = raw.startsWith('0x') ? raw : `0x${raw}`
    if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) {
      problems.push(`${name} must be a private key of 64 hex characters`)
      return undefined
    }
    return hex as `0x${string}`
  }
  return { str, int, num, bool, url, privateKey }
}

/**
 * CORS_ORIGINS: comma-separated origins (`https://app.example.com`, `http://localhost:5173`), or
 * `*` for any origin. An origin is a scheme, a host and an optional port: no path, no trailing
 * slash.
 */
export function corsOrigins(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return []
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  if (list.includes('*')) {
    if (list.length > 1) problems.push('CORS_ORIGINS is either * or a list of origins, not both')
    return ['*']
  }
  for (const origin of list) {
    let ok = false
    try {
      const u = new URL(origin)
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === origin
    } catch {}
    if (!ok)
      problems.push(
        `CORS_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`,
      )
  }
  return list
}

/** FEE_SWEEP_ADDRESS (any coin, key `*`) and FEE_SWEEP_ADDRESS_<COIN> (one coin, by reference). */
export function feeSweepAddresses(env: Env, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('FEE_SWEEP_ADDRESS')) continue
    const m = /^FEE_SWEEP_ADDRESS(?:_([A-Z0-9_]+))?$/.exec(name)
    const value = raw?.trim()
    if (!value) continue
    if (!m) {
      problems.push(
        `${name}: a per-coin cold address is FEE_SWEEP_ADDRESS_<COIN> (upper case, e.g. FEE_SWEEP_ADDRESS_USDC)`,
      )
      continue
    }
    if (!/^0x[0-9a-fA-F]{40}$/.test(value) || /^0x0{40}$/i.test(value)) {
      problems.push(`${name} must be an EVM address (0x + 40 hex), not the zero address`)
      continue
    }
    // Mixed case carries an EIP-55 checksum, which must be right (a mistyped address is refused).
    const body = value.slice(2)
    if (body !== body.toLowerCase() && body !== body.toUpperCase() && !isAddress(value, { strict: true })) {
      problems.push(`${name}: the address checksum (EIP-55 mixed case) is wrong`)
      continue
    }
    out[m[1] ? m[1].toLowerCase() : '*'] = value.toLowerCase()
  }
  return out
}

/**
 * The chain's JSON-RPC endpoints: EVM_RPC_URLS (comma-separated) or EVM_RPC_URL (one URL, or
 * several separated by commas, as before). Both at once is refused: which list wins would be a
 * guess. Each must be http(s) or ws(s); duplicates are refused.
 */
export function evmRpcUrls(env: Env, problems: string[]): string[] {
  const many = env.EVM_RPC_URLS?.trim() || undefined
  const one = env.EVM_RPC_URL?.trim() || undefined
  if (many && one) {
    problems.push('EVM_RPC_URLS and EVM_RPC_URL are both set: set one of them (EVM_RPC_URLS for several)')
    return []
  }
  const name = many ? 'EVM_RPC_URLS' : 'EVM_RPC_URL'
  const list = (many ?? one ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
  const out: string[] = []
  for (const raw of list) {
    let ok = false
    try {
      ok = ['http:', 'https:', 'ws:', 'wss:'].includes(new URL(raw).protocol)
    } catch {}
    if (!ok) {
      problems.push(`${name} must be URLs with one of http:, https:, ws:, wss: (comma-separated)`)
      return []
    }
    if (out.includes(raw)) {
      problems.push(`${name} names the same endpoint twice`)
      return []
    }
    out.push(raw)
  }
  return out
}

/** CONFIRMATIONS: a number of blocks (0–1000), or `finalized` for the chain's finalized block. */
export function confirmations(raw: string | undefined, problems: string[]): number | 'finalized' {
  if (raw === undefined || raw.trim() === '') return 1
  const v = raw.trim()
  if (v.toLowerCase() === 'finalized') return 'finalized'
  const n = Number(v)
  if (!Number.isInteger(n) || n < 0 || n > 1000) {
    problems.push(`CONFIRMATIONS must be an integer between 0 and 1000, or finalized (got "${v}")`)
    return 1
  }
  return n
}

/**
 * A duration: milliseconds as a bare integer, or a number with a unit `ms`, `s`, `m`, `h` or `d`
 * (`24h`, `30m`). At least `min` milliseconds.
 */
export function duration(
  name: string,
  raw: string | undefined,
  def: number,
  min: number,
  problems: string[],
): number {
  if (raw === undefined) return def
  const m = /^(\d+)\s*(ms|s|m|h|d)?$/.exec(raw)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 }[(m?.[2] ?? 'ms') as 'ms']
  const ms = m ? Number(m[1]) * unit : Number.NaN
  if (!Number.isSafeInteger(ms) || ms < min) {
    problems.push(
      `${name} must be a duration of at least ${min} ms, such as 24h, 30m or 86400000 (got "${raw}")`,
    )
    return def
  }
  return ms
}

/**
 * JWT_SECRET_PREVIOUS and JWT_SECRET_PREVIOUS_UNTIL: the secret JWT_SECRET replaced, still
 * verifying (never signing) what it signed until the given time. Both or neither; the previous
 * secret must differ from the current one and the time must be an ISO 8601 instant.
 */
export function jwtSecretPrevious(
  env: Env,
  current: string | undefined,
  problems: string[],
): { secret: string; until: Date } | undefined {
  const secret = env.JWT_SECRET_PREVIOUS?.trim() || undefined
  const untilRaw = env.JWT_SECRET_PREVIOUS_UNTIL?.trim() || undefined
  if (!secret && !untilRaw) return undefined
  if (!secret || !untilRaw) {
    problems.push('JWT_SECRET_PREVIOUS and JWT_SECRET_PREVIOUS_UNTIL go together: set both or neither')
    return undefined
  }
  const until = new Date(untilRaw)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(untilRaw) || Number.isNaN(until.getTime())) {
    problems.push(
      `JWT_SECRET_PREVIOUS_UNTIL must be an ISO 8601 time, e.g. 2026-12-01T00:00:00Z (got "${untilRaw}")`,
    )
    return undefined
  }
  if (secret.length < 32) problems.push('JWT_SECRET_PREVIOUS must be at least 32 characters')
  if (secret === current) problems.push('JWT_SECRET_PREVIOUS must differ from JWT_SECRET')
  return { secret, until }
}

/** Google sign-in (OpenID Connect): the client registered with the issuer. */
export interface GoogleSignInConfig {
  clientId: string
  clientSecret: string
  /** where the issuer sends the browser back with `code` and `state` (the front end's page) */
  redirectUrl: string
  /** the OpenID issuer whose discovery document, keys and token endpoint are used */
  issuerUrl: string
}

export const GOOGLE_ISSUER = 'https://accounts.google.com'
const GOOGLE_VARS = ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'GOOGLE_REDIRECT_URL'] as const

/** An http URL is only for a provider on this machine (tests, development), never in production. */
export function isLoopbackHttp(raw: string): boolean {
  const u = new URL(raw)
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
}

/**
 * GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and GOOGLE_REDIRECT_URL turn Google sign-in on: all three
 * or none (half a configuration is refused, naming what is missing). OIDC_ISSUER_URL points it at
 * another OpenID provider (https; http only on loopback outside production).
 */
export function googleSignIn(
  env: Env,
  production: boolean,
  problems: string[],
): GoogleSignInConfig | undefined {
  const get = (name: string) => env[name]?.trim() || undefined
  const set = GOOGLE_VARS.filter((n) => get(n) !== undefined)
  const issuerRaw = get('OIDC_ISSUER_URL')
  if (set.length === 0) {
    if (issuerRaw)
      problems.push(
        'OIDC_ISSUER_URL is set but Google sign-in is not: set GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and GOOGLE_REDIRECT_URL too',
      )
    return undefined
  }
  if (set.length < GOOGLE_VARS.length) {
    const missing = GOOGLE_VARS.filter((n) => !set.includes(n))
    problems.push(
      `Google sign-in is half configured: ${set.join(', ')} set but ${missing.join(', ')} missing (set all three or none)`,
    )
    return undefined
  }
  const checkUrl = (name: string, raw: string): boolean => {
    let u: URL
    try {
      u = new URL(raw)
    } catch {
      problems.push(`${name} must be an absolute URL (got "${raw}")`)
      return false
    }
    if (u.protocol === 'https:') return true
    if (u.protocol === 'http:' && !production && isLoopbackHttp(raw)) return true
    problems.push(
      production
        ? `${name} must be an https URL when NODE_ENV=production`
        : `${name} must be an https URL (http only on 127.0.0.1, localhost or [::1])`,
    )
    return false
  }
  const redirectUrl = get('GOOGLE_REDIRECT_URL')!
  const issuerUrl = (issuerRaw ?? GOOGLE_ISSUER).replace(/\/+$/, '')
  const okRedirect = checkUrl('GOOGLE_REDIRECT_URL', redirectUrl)
  const okIssuer = checkUrl('OIDC_ISSUER_URL', issuerUrl)
  if (!okRedirect || !okIssuer) return undefined
  return {
    clientId: get('GOOGLE_CLIENT_ID')!,
    clientSecret: get('GOOGLE_CLIENT_SECRET')!,
    redirectUrl,
    issuerUrl,
  }
}

/** Every problem of a configuration, reported at once. */
export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`)
  }
}
