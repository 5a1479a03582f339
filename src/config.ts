// The only reader of process.env: every variable is parsed and validated once (the readers of
// single variables are in config-env.ts; the chain's part in config-chain.ts, the keys in
// config-keys.ts), all problems are reported together, and the result is a frozen object passed
// to whoever needs it.
import { resolve } from 'node:path'
import { type ChainConfig, chainConfig } from './config-chain.ts'
import {
  ConfigError,
  corsOrigins,
  duration,
  type Env,
  envReader,
  feeSweepAddresses,
  type GoogleSignInConfig,
  googleSignIn,
  jwtSecretPrevious,
} from './config-env.ts'
import { fillKeys, parseKeys, readKeys } from './config-keys.ts'
import { type PurposeSecrets, readPurposeSecrets } from './config-secrets.ts'
import { type VerificationConfig, verificationConfig } from './config-verification.ts'
import { type WebAuthnConfig, webauthnConfig } from './config-webauthn.ts'
import { LIVE_SOCKETS_PER_USER, type WriteLimits, writeLimits } from './http/write-limits.ts'
import type { SecretRotation } from './platform/crypto/secret-ring.ts'

export interface RateLimitConfig {
  /** requests per window per client IP on the sensitive auth routes */
  authPerIp: number
  /** requests per window per email address on the sensitive auth routes */
  authPerEmail: number
  /** window length in milliseconds */
  windowMs: number
  /** limits on repeated writes per account and per IP (src/http/write-limits.ts) */
  writes: WriteLimits
  /** open live sockets per account in one process (a new one closes the oldest) */
  liveSocketsPerUser: number
}

export { type DevchainConfig, loadDevchainConfig } from './config-chain.ts'
export { ConfigError } from './config-env.ts'

export interface Config extends ChainConfig {
  production: boolean
  port: number
  host: string
  publicUrl: string
  dataDir: string
  databaseUrl: string | undefined
  /** most pooled connections this process opens to PostgreSQL (DATABASE_POOL_SIZE) */
  databasePoolSize: number
  jwtSecret: string
  /** the secret JWT_SECRET replaced, still verifying what it signed until `until` (never signing) */
  jwtSecretPrevious: { secret: string; until: Date } | undefined
  /** the roots of one-time codes (CODES_SECRET) and pre-signed URLs (URL_SIGNING_SECRET), each with
   * the root it replaced (config-secrets.ts) */
  secrets: PurposeSecrets
  keyEncryptionKey: Buffer
  /** identifies the key-encryption key so keys can be rotated */
  keyEncryptionKeyId: string
  /** earlier key-encryption keys by id, still able to open secrets sealed before a rotation */
  previousKeyEncryptionKeys: Record<string, Buffer>
  smtpUrl: string | undefined
  mailFrom: string
  s3:
    | {
        endpoint: string | undefined
        bucket: string
        region: string
        accessKeyId: string | undefined
        secretAccessKey: string | undefined
        forcePathStyle: boolean
      }
    | undefined
  /** directory of the disk object store (FILES_DIR); `DATA_DIR/files` when unset */
  filesDir: string | undefined
  uploadMaxBytes: number
  redisUrl: string | undefined
  platformFeePercent: number
  /** how many accounts may sign up with one referral code (REFERRAL_LIMIT) */
  referralLimit: number
  /** how many addresses one user may invite by e-mail per 24 hours (REFERRAL_INVITES_PER_DAY) */
  referralInvitesPerDay: number
  logLevel: string
  trustProxy: boolean
  rateLimit: RateLimitConfig
  /** background workers (jobs, chain watcher) run in this process */
  runWorkers: boolean
  /** a restored database: no workers; jobs with an outside effect parked, operators signed out,
   * the restore report logged at start (docs/operations.md) */
  restoreMode: boolean
  /** how long a graceful shutdown may take before the process exits anyway */
  shutdownTimeoutMs: number
  /** `json` (one pino line per event, the default) or `pretty` (human-readable, for development) */
  logFormat: 'json' | 'pretty'
  /** browser origins allowed to call the API (CORS); empty = none; `*` = any */
  corsOrigins: string[]
  /** bearer token required by `/metrics` when set; open otherwise */
  metricsToken: string | undefined
  /** port of the worker process's `/health`, `/ready` and `/metrics`; 0 = not served */
  workerPort: number
  /** time limit of each readiness check and of each metrics reading (database, chain) */
  readyTimeoutMs: number
  /** lower-case emails whose verified accounts are admins (ADMIN_EMAILS, comma-separated) */
  adminEmails: string[]
  /** how long an admin's second factor keeps a session elevated (ADMIN_SESSION_TTL_MS) */
  adminSessionTtlMs: number
  /** an operator's session is revoked after this long without a /v1/admin request (ADMIN_IDLE_TIMEOUT_MS) */
  adminIdleTimeoutMs: number
  /** what unlocks the admin pages: `totp` (an authenticator app, required) or `totp-or-email` (ADMIN_SECOND_FACTOR) */
  adminSecondFactor: 'totp' | 'totp-or-email'
  /** the relying party of operators' passkeys (WEBAUTHN_RP_ID, WEBAUTHN_ORIGIN; config-webauthn.ts) */
  webauthn: WebAuthnConfig
  /** cold addresses for fee sweeps: `*` (FEE_SWEEP_ADDRESS) and per coin reference
   * (FEE_SWEEP_ADDRESS_<COIN>, which wins) */
  feeSweepAddresses: Record<string, string>
  /** the platform's proof-of-reserves attestation key (RESERVES_ATTESTATION_KEY); generated in embedded mode */
  reservesAttestationKey: `0x${string}`
  /** how often a proof-of-reserves snapshot is taken (RESERVES_SNAPSHOT_INTERVAL, default a day) */
  reservesSnapshotIntervalMs: number
  /** Google sign-in (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, GOOGLE_REDIRECT_URL, OIDC_ISSUER_URL);
   * unset: its routes answer 503 */
  google: GoogleSignInConfig | undefined
  /** identity verification: provider, Veriff keys, media limits, KYC_REQUIRED_FOR (config-verification.ts) */
  verification: VerificationConfig
}

/** Reads and validates the environment. `overrides` lets tests and tools replace single values. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = []
  const { str, int, num, bool, url, privateKey } = envReader(env, problems)

  const production = str('NODE_ENV') === 'production'
  const port = int('PORT', 3000, 0, 65535)
  const host = str('HOST') ?? '127.0.0.1'
  const dataDir = resolve(str('DATA_DIR') ?? './data')
  const publicUrl = (url('PUBLIC_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(/\/+$/, '')
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:'])

  const keys = readKeys(str, production, problems)
  const { jwtSecret } = keys
  // Production runs on real parts only: the embedded database, dev chain, mail outbox and files
  // under DATA_DIR are refused, and every missing variable is named.
  if (production) {
    for (const name of [
      'DATABASE_URL',
      'PUBLIC_URL',
      'SMTP_URL',
      'COINS_FILE',
      'TREASURY_PRIVATE_KEY',
      'GAS_WALLET_PRIVATE_KEY',
    ])
      if (str(name) === undefined) problems.push(`${name} is required when NODE_ENV=production`)
    if (str('S3_BUCKET') === undefined && str('FILES_DIR') === undefined)
      problems.push(
        'S3_BUCKET (with the other S3_* variables) or FILES_DIR is required when NODE_ENV=production',
      )
    if (str('RESERVES_ATTESTATION_KEY') === undefined)
      problems.push('RESERVES_ATTESTATION_KEY is required when NODE_ENV=production')
    // /metrics carries custody and transaction figures: never open on a production port.
    if (str('METRICS_TOKEN') === undefined)
      problems.push('METRICS_TOKEN is required when NODE_ENV=production: /metrics is never open there')
  }
  parseKeys(keys, str, problems)

  const s3Bucket = str('S3_BUCKET')
  const s3 = s3Bucket
    ? {
        endpoint: url('S3_ENDPOINT', ['http:', 'https:']),
        bucket: s3Bucket,
        region: str('S3_REGION') ?? 'us-east-1',
        accessKeyId: str('S3_ACCESS_KEY_ID'),
        secretAccessKey: str('S3_SECRET_ACCESS_KEY'),
        forcePathStyle: bool('S3_FORCE_PATH_STYLE', str('S3_ENDPOINT') !== undefined),
      }
    : undefined
  if (!s3 && (str('S3_ENDPOINT') || str('S3_ACCESS_KEY_ID')))
    problems.push('S3_BUCKET is required when S3 is configured')

  const purposeSecrets = readPurposeSecrets(env, jwtSecret, problems)
  const chain = chainConfig(env, { str, int, num, bool, url, privateKey }, production, problems)
  const cfg: Config = {
    production,
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 500),
    jwtSecret: jwtSecret ?? '',
    jwtSecretPrevious: jwtSecretPrevious(env, jwtSecret, problems),
    secrets: purposeSecrets,
    keyEncryptionKey: keys.keyEncryptionKey,
    keyEncryptionKeyId: str('KEY_ENCRYPTION_KEY_ID') ?? 'k1',
    previousKeyEncryptionKeys: keys.previousKeyEncryptionKeys,
    smtpUrl: url('SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: str('MAIL_FROM') ?? 'WorkPay <no-reply@workpay.local>',
    ...chain,
    s3,
    filesDir: str('FILES_DIR') === undefined ? undefined : resolve(str('FILES_DIR')!),
    uploadMaxBytes: int('UPLOAD_MAX_BYTES', 10 * 1024 * 1024, 1, 5 * 1024 * 1024 * 1024),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    platformFeePercent: num('PLATFORM_FEE_PERCENT', 5, 0, 50),
    referralLimit: int('REFERRAL_LIMIT', 100, 1, 1_000_000),
    referralInvitesPerDay: int('REFERRAL_INVITES_PER_DAY', 20, 1, 10_000),
    logLevel: str('LOG_LEVEL') ?? 'info',
    trustProxy: bool('TRUST_PROXY', false),
    rateLimit: {
      authPerIp: int('RATE_LIMIT_AUTH_PER_IP', 30, 1, 1_000_000),
      authPerEmail: int('RATE_LIMIT_AUTH_PER_EMAIL', 10, 1, 1_000_000),
      windowMs: int('RATE_LIMIT_WINDOW_MS', 15 * 60 * 1000, 1000, 24 * 3600 * 1000),
      writes: writeLimits(
        str('RATE_LIMIT_WRITES'),
        int('RATE_LIMIT_WRITES_SCALE', 1, 1, 1_000_000),
        problems,
      ),
      liveSocketsPerUser: int('RATE_LIMIT_LIVE_SOCKETS', LIVE_SOCKETS_PER_USER, 1, 10_000),
    },
    runWorkers: bool('RUN_WORKERS', true),
    restoreMode: bool('RESTORE_MODE', false),
    shutdownTimeoutMs: int('SHUTDOWN_TIMEOUT_MS', 25_000, 1000, 10 * 60_000),
    logFormat: 'json',
    corsOrigins: [],
    metricsToken: str('METRICS_TOKEN'),
    workerPort: int('WORKER_PORT', 0, 0, 65535),
    readyTimeoutMs: int('READY_TIMEOUT_MS', 2000, 100, 60_000),
    adminEmails: (str('ADMIN_EMAILS') ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean),
    adminSessionTtlMs: int('ADMIN_SESSION_TTL_MS', 15 * 60_000, 60_000, 24 * 3600 * 1000),
    adminIdleTimeoutMs: int('ADMIN_IDLE_TIMEOUT_MS', 4 * 3600_000, 60_000, 7 * 24 * 3600_000),
    adminSecondFactor: 'totp',
    webauthn: webauthnConfig(str, production, publicUrl, problems),
    feeSweepAddresses: feeSweepAddresses(env, problems),
    reservesAttestationKey: privateKey('RESERVES_ATTESTATION_KEY') ?? `0x${'00'.repeat(32)}`,
    reservesSnapshotIntervalMs: duration(
      'RESERVES_SNAPSHOT_INTERVAL',
      str('RESERVES_SNAPSHOT_INTERVAL'),
      24 * 3600_000,
      60_000,
      problems,
    ),
    google: googleSignIn(env, production, problems),
    verification: verificationConfig(problems, { str, int, url }, production),
  }
  const adminFactor = str('ADMIN_SECOND_FACTOR') ?? 'totp'
  if (adminFactor === 'totp' || adminFactor === 'totp-or-email') cfg.adminSecondFactor = adminFactor
  else problems.push(`ADMIN_SECOND_FACTOR must be totp or totp-or-email (got "${adminFactor}")`)
  const logFormat = str('LOG_FORMAT') ?? 'json'
  if (logFormat === 'json' || logFormat === 'pretty') cfg.logFormat = logFormat
  else problems.push(`LOG_FORMAT must be json or pretty (got "${logFormat}")`)
  cfg.corsOrigins = corsOrigins(str('CORS_ORIGINS'), problems)
  if (cfg.metricsToken !== undefined && cfg.metricsToken.length < 16)
    problems.push('METRICS_TOKEN must be at least 16 characters')
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(cfg.logLevel)) {
    problems.push('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent')
  }
  if (problems.length > 0) throw new ConfigError(problems)

  fillKeys(cfg, keys, { str, purposeSecrets, dataDir })
  return Object.freeze({ ...cfg, ...overrides })
}

/**
 * Guards the embedded stand-ins (dev chain, mail outbox, embedded database, files under DATA_DIR)
 * so that none of them can start in production, even from a configuration built by hand.
 */
export function notInProduction(what: string): never {
  throw new Error(`${what} never runs when NODE_ENV=production`)
}

/** JWT_SECRET with the secret it replaced, as token, code and URL signers take it. */
export function jwtRotation(config: Pick<Config, 'jwtSecret' | 'jwtSecretPrevious'>): SecretRotation {
  return {
    current: config.jwtSecret,
    previous: config.jwtSecretPrevious?.secret,
    previousUntil: config.jwtSecretPrevious?.until,
  }
}
