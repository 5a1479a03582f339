// The key material of the configuration (config.ts): JWT_SECRET, the key-encryption key and the
// keys it replaced, which of them must be given (production, or a database shared through
// DATABASE_URL), and, for the embedded database, those generated once into DATA_DIR.
import { hkdfSync } from 'node:crypto'
import type { Config } from './config.ts'
import type { envReader } from './config-env.ts'
import { embeddedSecrets, fillPurposeSecrets, type PurposeSecrets } from './config-secrets.ts'

export interface KeysRead {
  jwtSecret: string | undefined
  /** KEY_ENCRYPTION_KEY as given */
  kekRaw: string | undefined
  /** the key-encryption key (zeros until generated when not given) */
  keyEncryptionKey: Buffer
  previousKeyEncryptionKeys: Record<string, Buffer>
  /** why the secrets must be given (production, DATABASE_URL), or undefined: generated if missing */
  secretsRule: string | undefined
}

/** Reads the keys, noting what is missing or malformed in `problems`. */
export function readKeys(
  str: ReturnType<typeof envReader>['str'],
  production: boolean,
  problems: string[],
): KeysRead {
  const jwtSecret = str('JWT_SECRET')
  const kekRaw = str('KEY_ENCRYPTION_KEY')
  // Secrets are generated into DATA_DIR only for the embedded database: a PostgreSQL database may
  // be shared by several processes (and outlives this machine's disk), so they must all be given
  // the same secrets.
  const secretsRule = production
    ? 'when NODE_ENV=production'
    : str('DATABASE_URL') !== undefined
      ? 'when DATABASE_URL is set'
      : undefined
  if (secretsRule) {
    if (!jwtSecret) problems.push(`JWT_SECRET is required ${secretsRule}`)
    if (!kekRaw) problems.push(`KEY_ENCRYPTION_KEY is required ${secretsRule}`)
  }
  return { jwtSecret, kekRaw, keyEncryptionKey: Buffer.alloc(32), previousKeyEncryptionKeys: {}, secretsRule }
}

/** Checks the keys' formats (after the production checks, so that problems read in that order). */
export function parseKeys(k: KeysRead, str: ReturnType<typeof envReader>['str'], problems: string[]): void {
  if (k.jwtSecret !== undefined && k.jwtSecret.length < 32)
    problems.push('JWT_SECRET must be at least 32 characters')
  if (k.kekRaw !== undefined) {
    const raw = k.kekRaw
    const buf = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64')
    if (buf.length !== 32)
      problems.push('KEY_ENCRYPTION_KEY must be 32 bytes, as 64 hex characters or base64')
    else k.keyEncryptionKey = buf
  }
  // KEY_ENCRYPTION_KEYS_PREVIOUS="k0:<64 hex>,k-1:<64 hex>" keeps rotated-out keys readable.
  for (const entry of (str('KEY_ENCRYPTION_KEYS_PREVIOUS') ?? '').split(',').filter(Boolean)) {
    const [id, hex] = entry.split(':')
    if (!id || !hex || !/^[0-9a-fA-F]{64}$/.test(hex))
      problems.push('KEY_ENCRYPTION_KEYS_PREVIOUS must be id:<64 hex>,...')
    else k.previousKeyEncryptionKeys[id] = Buffer.from(hex, 'hex')
  }
}

/**
 * Embedded database: secrets that were not given are generated once and kept in DATA_DIR so that
 * tokens and encrypted keys stay valid across restarts. Outside production, a database shared by
 * several processes (DATABASE_URL) without an attestation key gets one derived from the
 * key-encryption key, the same in every process.
 */
export function fillKeys(
  cfg: Config,
  k: KeysRead,
  o: { str: ReturnType<typeof envReader>['str']; purposeSecrets: PurposeSecrets; dataDir: string },
): void {
  const { str, purposeSecrets } = o
  let { jwtSecret, kekRaw } = k
  if (k.secretsRule && !str('RESERVES_ATTESTATION_KEY'))
    cfg.reservesAttestationKey = `0x${Buffer.from(
      hkdfSync('sha256', cfg.keyEncryptionKey, '', 'workpay-reserves-attestation', 32),
    ).toString('hex')}`
  if (k.secretsRule)
    cfg.secrets = fillPurposeSecrets(purposeSecrets, { keyEncryptionKey: cfg.keyEncryptionKey })
  const purposeMissing = !purposeSecrets.codes.secret || !purposeSecrets.urlSigning.secret
  if (!k.secretsRule && (!jwtSecret || !kekRaw || !str('RESERVES_ATTESTATION_KEY') || purposeMissing)) {
    const generated = embeddedSecrets(o.dataDir)
    cfg.secrets = fillPurposeSecrets(purposeSecrets, { generated })
    if (!str('RESERVES_ATTESTATION_KEY')) cfg.reservesAttestationKey = generated.reservesAttestationKey
    jwtSecret ??= generated.jwtSecret
    if (!kekRaw) {
      kekRaw = generated.keyEncryptionKey
      cfg.keyEncryptionKey = Buffer.from(kekRaw, 'hex')
    }
    cfg.jwtSecret = jwtSecret
  }
}
