// Passkeys (WebAuthn) of the operator console: the relying party a browser binds each passkey to.
// WEBAUTHN_ORIGIN is the console's origin as the browser sees it; WEBAUTHN_RP_ID the domain the
// passkeys belong to (the origin's host or a parent domain of it). Outside production both default
// from PUBLIC_URL, with a loopback IP read as `localhost` (browsers refuse an IP address as RP ID);
// in production both are required, the origin an https origin (or http://localhost, which browsers
// treat as secure).
import { isLoopbackHttp } from './config-env.ts'

export interface WebAuthnConfig {
  /** the domain passkeys are bound to (WEBAUTHN_RP_ID) */
  rpId: string
  /** the console's origin, scheme://host[:port] (WEBAUTHN_ORIGIN) */
  origin: string
  /** the name an authenticator shows beside the passkey */
  rpName: string
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/

export function webauthnConfig(
  get: (name: string) => string | undefined,
  production: boolean,
  publicUrl: string,
  problems: string[],
): WebAuthnConfig {
  const rawOrigin = get('WEBAUTHN_ORIGIN')
  const rawRpId = get('WEBAUTHN_RP_ID')
  if (production) {
    if (rawOrigin === undefined) problems.push('WEBAUTHN_ORIGIN is required when NODE_ENV=production')
    if (rawRpId === undefined) problems.push('WEBAUTHN_RP_ID is required when NODE_ENV=production')
  }
  let origin: URL | undefined
  try {
    origin = new URL(rawOrigin ?? publicUrl)
    if (rawOrigin === undefined && ['127.0.0.1', '[::1]'].includes(origin.hostname))
      origin.hostname = 'localhost'
  } catch {
    problems.push(
      `WEBAUTHN_ORIGIN must be an origin such as https://console.example.com (got "${rawOrigin}")`,
    )
  }
  const fallback = { rpId: 'localhost', origin: 'http://localhost', rpName: 'WorkPay operator console' }
  if (!origin) return fallback
  if (rawOrigin !== undefined && (origin.pathname !== '/' || origin.search || origin.hash || origin.username))
    problems.push(`WEBAUTHN_ORIGIN must be an origin only, scheme://host[:port] (got "${rawOrigin}")`)
  // (a browser treats http://localhost as a secure context: a production set-up on one machine)
  const secure =
    origin.protocol === 'https:' ||
    (production
      ? origin.protocol === 'http:' && origin.hostname === 'localhost'
      : isLoopbackHttp(origin.href))
  if (!secure)
    problems.push(
      production
        ? 'WEBAUTHN_ORIGIN must be an https origin when NODE_ENV=production (http only on localhost)'
        : 'WEBAUTHN_ORIGIN must be https (http only on localhost or a loopback address)',
    )
  const rpId = (rawRpId ?? origin.hostname).toLowerCase()
  if (!DOMAIN.test(rpId) || /^[0-9.]+$/.test(rpId))
    problems.push(`WEBAUTHN_RP_ID must be a domain name, not an IP address or URL (got "${rpId}")`)
  else if (origin.hostname !== rpId && !origin.hostname.endsWith(`.${rpId}`))
    problems.push(
      `WEBAUTHN_RP_ID (${rpId}) must be the host of WEBAUTHN_ORIGIN (${origin.hostname}) or a parent domain of it`,
    )
  return { rpId, origin: origin.origin, rpName: fallback.rpName }
}
