// Webhook signatures as the Standard Webhooks specification defines them
// (https://www.standardwebhooks.com): HMAC-SHA256, keyed with the secret's bytes (the base64 after
// `whsec_`), over `<webhook-id>.<webhook-timestamp>.<body>`, sent base64 as
// `webhook-signature: v1,<signature>`; while a rotated-away secret still signs, one signature per
// secret, space-separated. Any `standardwebhooks` library (TypeScript, Python, Go, Ruby, Java, ...)
// verifies it; the tests verify every delivery with the npm one.
import { createHmac, randomBytes } from 'node:crypto'

const PREFIX = 'whsec_'

/** A new signing secret: `whsec_` and 32 random bytes in standard base64. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`
}

/**
 * The key bytes of a secret. Secrets issued before Standard Webhooks signing were spelled in
 * base64url (`-` and `_` for `+` and `/`, no padding); Node's base64 decoder reads both alphabets,
 * so the same bytes sign whichever spelling is stored.
 */
export function secretKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64')
  if (key.length === 0) throw new Error('empty webhook secret')
  return key
}

/** The standard-base64 spelling of a secret (what a `standardwebhooks` library decodes). */
export function standardSpelling(secret: string): string {
  return `${PREFIX}${secretKey(secret).toString('base64')}`
}

/** `v1,<base64 HMAC-SHA256>` of one message under one secret. */
export function signature(secret: string, msgId: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${msgId}.${timestamp}.${body}`).digest('base64')
  return `v1,${mac}`
}

/**
 * The `webhook-signature` header of a message sent at `timestamp` (Unix seconds): one signature
 * per secret, the current secret's first, separated by spaces.
 */
export function signatureHeader(secrets: readonly string[], msgId: string, timestamp: number, body: string) {
  return secrets.map((s) => signature(s, msgId, timestamp, body)).join(' ')
}
