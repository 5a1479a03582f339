// The root secrets of one-time codes (CODES_SECRET) and of the disk store's pre-signed URLs
// (URL_SIGNING_SECRET), read by config.ts. Each purpose has a root of its own, so that rotating
// one (or JWT_SECRET, which signs sessions) never breaks what another signed; each may name the
// root it replaced (`*_PREVIOUS` with `*_PREVIOUS_UNTIL`), still verifying until then. When one is
// not given: derived from the key-encryption key (production, or a shared DATABASE_URL: the same
// in every process), or generated once into DATA_DIR/secrets.json (the embedded database).
import { hkdfSync, randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Env } from './config-env.ts'
import type { SecretRotation } from './platform/crypto/secret-ring.ts'

export interface PurposeSecret {
  secret: string
  /** the root it replaced, still verifying (never signing) until `until` */
  previous: { secret: string; until: Date } | undefined
}

export interface PurposeSecrets {
  codes: PurposeSecret
  urlSigning: PurposeSecret
}

const PURPOSES = [
  { name: 'CODES_SECRET', key: 'codes', label: 'workpay-codes-secret' },
  { name: 'URL_SIGNING_SECRET', key: 'urlSigning', label: 'workpay-url-signing-secret' },
] as const

/** The root derived from the key-encryption key for a purpose whose secret is not given. */
export function derivedRoot(keyEncryptionKey: Buffer, purpose: keyof PurposeSecrets): string {
  const label = PURPOSES.find((p) => p.key === purpose)!.label
  return Buffer.from(hkdfSync('sha256', keyEncryptionKey, '', label, 32)).toString('hex')
}

/**
 * Reads CODES_SECRET and URL_SIGNING_SECRET with their previous roots. A purpose whose secret is
 * not given answers `secret: ''`, to be filled by `fillPurposeSecrets`. Refused: a root under 32
 * characters, the same root as JWT_SECRET or as the other purpose (one leak or rotation would
 * reach both), a previous root without the current one set, or equal to it.
 */
export function readPurposeSecrets(
  env: Env,
  jwtSecret: string | undefined,
  problems: string[],
): PurposeSecrets {
  const get = (name: string) => env[name]?.trim() || undefined
  const out = {} as PurposeSecrets
  for (const p of PURPOSES) {
    const secret = get(p.name)
    if (secret !== undefined && secret.length < 32) problems.push(`${p.name} must be at least 32 characters`)
    if (secret !== undefined && secret === jwtSecret)
      problems.push(`${p.name} must differ from JWT_SECRET: each purpose has a secret of its own`)
    const previousRaw = get(`${p.name}_PREVIOUS`)
    const untilRaw = get(`${p.name}_PREVIOUS_UNTIL`)
    let previous: PurposeSecret['previous']
    if (previousRaw || untilRaw) {
      if (!previousRaw || !untilRaw)
        problems.push(`${p.name}_PREVIOUS and ${p.name}_PREVIOUS_UNTIL go together: set both or neither`)
      else if (secret === undefined)
        problems.push(`${p.name}_PREVIOUS needs ${p.name}: the root it was replaced by`)
      else {
        const until = new Date(untilRaw)
        if (!/^\d{4}-\d{2}-\d{2}T/.test(untilRaw) || Number.isNaN(until.getTime()))
          problems.push(
            `${p.name}_PREVIOUS_UNTIL must be an ISO 8601 time, e.g. 2026-12-01T00:00:00Z (got "${untilRaw}")`,
          )
        else if (previousRaw === secret) problems.push(`${p.name}_PREVIOUS must differ from ${p.name}`)
        else previous = { secret: previousRaw, until }
      }
    }
    out[p.key] = { secret: secret ?? '', previous }
  }
  if (out.codes.secret && out.codes.secret === out.urlSigning.secret)
    problems.push('CODES_SECRET and URL_SIGNING_SECRET must differ: each purpose has a secret of its own')
  return out
}

/** Fills the roots not given: from `generated` (embedded) or derived from the key-encryption key. */
export function fillPurposeSecrets(
  read: PurposeSecrets,
  from: { keyEncryptionKey: Buffer } | { generated: { codesSecret: string; urlSigningSecret: string } },
): PurposeSecrets {
  const fill = (key: keyof PurposeSecrets, generated: string | undefined): PurposeSecret =>
    read[key].secret
      ? read[key]
      : {
          secret: generated ?? derivedRoot((from as { keyEncryptionKey: Buffer }).keyEncryptionKey, key),
          previous: undefined,
        }
  const gen = 'generated' in from ? from.generated : undefined
  return { codes: fill('codes', gen?.codesSecret), urlSigning: fill('urlSigning', gen?.urlSigningSecret) }
}

const rotation = (p: PurposeSecret): SecretRotation => ({
  current: p.secret,
  previous: p.previous?.secret,
  previousUntil: p.previous?.until,
})

/** CODES_SECRET with the root it replaced, as the code hasher takes it. */
export const codesRotation = (config: { secrets: PurposeSecrets }) => rotation(config.secrets.codes)

/** URL_SIGNING_SECRET with the root it replaced, as the URL signer takes it. */
export const urlSigningRotation = (config: { secrets: PurposeSecrets }) => rotation(config.secrets.urlSigning)

/** The secrets of the embedded database, generated once into DATA_DIR/secrets.json. */
export function embeddedSecrets(dataDir: string): {
  jwtSecret: string
  keyEncryptionKey: string
  reservesAttestationKey: `0x${string}`
  codesSecret: string
  urlSigningSecret: string
} {
  const file = join(dataDir, 'secrets.json')
  const kept = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined
  // A secrets file written before a secret existed gets it added, the rest unchanged.
  if (kept?.reservesAttestationKey && kept.codesSecret && kept.urlSigningSecret) return kept
  mkdirSync(dataDir, { recursive: true })
  const secrets = {
    jwtSecret: randomBytes(32).toString('hex'),
    keyEncryptionKey: randomBytes(32).toString('hex'),
    reservesAttestationKey: `0x${randomBytes(32).toString('hex')}`,
    codesSecret: randomBytes(32).toString('hex'),
    urlSigningSecret: randomBytes(32).toString('hex'),
    ...kept,
  }
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 })
  return secrets
}
