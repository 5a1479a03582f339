// Webhook signatures: HMAC-SHA256 with the endpoint's secret over `<unix seconds>.<body>`, sent as
// `webhook-signature: t=<unix seconds>,v1=<hex>`. `verifySignature` is what a receiver runs (the
// docs show the same code); the tests verify deliveries with it.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/** A new signing secret: `whsec_` and 32 random bytes, base64url. The whole string is the key. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

export function signature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
}

/** The `webhook-signature` header of a body sent at `timestamp` (Unix seconds). */
export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${signature(secret, timestamp, body)}`
}

/**
 * Checks a `webhook-signature` header against the raw body: the signature must match and the
 * timestamp be within `toleranceSeconds` of `now` (a replayed old request is refused).
 */
export function verifySignature(
  secret: string,
  header: string,
  body: string,
  opts: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  const parts = new Map(
    header.split(',').map((p) => {
      const i = p.indexOf('=')
      return [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const
    }),
  )
  const t = Number(parts.get('t'))
  const given = parts.get('v1') ?? ''
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(given)) return false
  const now = opts.now ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? 300)) return false
  return timingSafeEqual(Buffer.from(signature(secret, t, body), 'hex'), Buffer.from(given, 'hex'))
}
