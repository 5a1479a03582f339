// JWTs (HS256). A permanent token names a row of the sessions table (`jti`), so revoking the row
// revokes the token at once. A temporary token names one auth flow and one purpose; it is refused
// by every step of another purpose. Its subject is the flow id, never the account: a token issued
// for an unknown email looks exactly like one issued for a real account. Every token must carry
// `exp`; one without it is refused.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto'
import { SignJWT } from 'jose'
import type { Clock } from '../../platform/clock.ts'
import { SecretRing, type SecretRotation } from '../../platform/crypto/secret-ring.ts'
import { Kept } from '../../platform/kept.ts'

export const TEMP_PURPOSES = [
  'verify_email',
  'reset_password',
  'login_2fa',
  'web3_sign',
  'web3_onboard',
  'export_key',
] as const
export type TempPurpose = (typeof TEMP_PURPOSES)[number]

export const TEMP_TOKEN_TTL_MS = 15 * 60 * 1000
/** The permanent token "expires far in the future": ten years. */
export const ACCESS_TOKEN_TTL_MS = 10 * 365 * 24 * 3600 * 1000

export interface TokenObject {
  token: string
  token_type: 'jwt'
  expiresIn: number
}

export interface AccessClaims {
  userId: string
  sessionId: string
}

/** The account behind a flow is kept only in its row (auth_flows.user_id), never in the token. */
export interface TempClaims {
  flowId: string
  purpose: TempPurpose
}

const ISSUER = 'workpay'
/** Permanent tokens whose signature and claims were checked, kept by the exact token string. */
const VERIFIED_MAX = 10_000
const B64URL = /^[A-Za-z0-9_-]+$/
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

export class TokenService {
  readonly #ring: SecretRing
  readonly #key: Uint8Array
  /** the HMAC key of each secret, by the secret */
  readonly #hmacKeys = new Map<string, KeyObject>()
  /**
   * Permanent tokens already verified, with their claims and `exp` (seconds): a client sends the
   * same token on every request, and its signature cannot stop being valid. Only `exp` is checked
   * again on a hit; revocation is the session row's (checked on every request by the caller).
   * Oldest first out past VERIFIED_MAX.
   */
  readonly #verified = new Kept<AccessClaims & { exp: number }>(VERIFIED_MAX)
  /**
   * `secret`: JWT_SECRET, or it with the secret it replaced (JWT_SECRET_PREVIOUS): tokens are signed
   * with the current one only and name it (`kid`); the previous one still verifies what it signed
   * until its window ends.
   */
  constructor(
    secret: string | SecretRotation,
    private readonly clock: Clock,
  ) {
    this.#ring = new SecretRing(typeof secret === 'string' ? { current: secret } : secret, clock)
    this.#key = new TextEncoder().encode(this.#ring.current)
  }

  /** The secrets a one-time code's stored hash may have been made with now (current first). */
  codeSecrets(): string[] {
    return this.#ring.verifying()
  }

  #hmacKey(secret: string): KeyObject {
    let key = this.#hmacKeys.get(secret)
    if (!key) {
      key = createSecretKey(Buffer.from(secret, 'utf8'))
      this.#hmacKeys.set(secret, key)
    }
    return key
  }

  async #sign(claims: Record<string, unknown>, subject: string, jti: string, expiresAt: number) {
    const now = this.clock.now().getTime()
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: this.#ring.currentId })
      .setIssuer(ISSUER)
      .setSubject(subject)
      .setJti(jti)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(this.#key)
  }

  async access(userId: string, sessionId: string): Promise<TokenObject> {
    const expiresIn = this.clock.now().getTime() + ACCESS_TOKEN_TTL_MS
    return {
      token: await this.#sign({ typ: 'access' }, userId, sessionId, expiresIn),
      token_type: 'jwt',
      expiresIn,
    }
  }

  async temp(flowId: string, purpose: TempPurpose, expiresAt: Date): Promise<TokenObject> {
    const expiresIn = expiresAt.getTime()
    const token = await this.#sign({ typ: 'temp', purpose }, flowId, flowId, expiresIn)
    return { token, token_type: 'jwt', expiresIn }
  }

  /**
   * HS256 verification with node:crypto and a key imported once (jose imports the WebCrypto key on
   * every call, which dominated an authenticated request). The checks are jose's: the header names
   * HS256 and no critical extension, the signature matches in constant time, `iss` is ours,
   * `exp`, `sub` and `jti` are present, and `exp` and `nbf` hold at the clock's time.
   */
  #verify(token: string): { claims: Record<string, unknown>; current: boolean } | 'expired' | undefined {
    const parts = token.split('.')
    if (parts.length !== 3) return
    const [h, p, s] = parts as [string, string, string]
    if (!B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s)) return
    let header: unknown
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'))
    } catch {
      return
    }
    if (!isObject(header) || header.alg !== 'HS256' || 'crit' in header || header.b64 === false) return
    // The key the header names (tokens signed before key ids were: each secret still accepted).
    const named = typeof header.kid === 'string' ? this.#ring.byId(header.kid) : undefined
    if (header.kid !== undefined && !named) return
    const given = Buffer.from(s, 'base64url')
    const signedBy = (secret: string) => {
      const expected = createHmac('sha256', this.#hmacKey(secret)).update(`${h}.${p}`).digest()
      return given.length === expected.length && timingSafeEqual(given, expected)
    }
    const secret = named ?? this.#ring.verifying().find(signedBy)
    if (!secret || (named && !signedBy(named))) return
    let payload: unknown
    try {
      payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'))
    } catch {
      return
    }
    if (!isObject(payload) || payload.iss !== ISSUER) return
    const { exp, nbf, iat, sub, jti } = payload
    if (typeof exp !== 'number' || !Number.isFinite(exp)) return
    if (typeof sub !== 'string' || typeof jti !== 'string') return
    if (iat !== undefined && typeof iat !== 'number') return
    const now = Math.floor(this.clock.now().getTime() / 1000)
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) return
    if (exp <= now) return 'expired'
    return { claims: payload, current: secret === this.#ring.current }
  }

  /** Returns the claims of a valid permanent token, or undefined. */
  verifyAccess(token: string): AccessClaims | undefined {
    const known = this.#verified.get(token)
    if (known) {
      if (known.exp > Math.floor(this.clock.now().getTime() / 1000))
        return { userId: known.userId, sessionId: known.sessionId }
      this.#verified.delete(token)
      return
    }
    const v = this.#verify(token)
    if (!v || v === 'expired') return
    const p = v.claims
    if (p.typ !== 'access' || typeof p.sub !== 'string' || typeof p.jti !== 'string') return
    // Only what the current secret signed is remembered: the previous one stops verifying when its
    // window closes, so its tokens are checked again on every use.
    if (v.current) this.#verified.set(token, { userId: p.sub, sessionId: p.jti, exp: p.exp as number })
    return { userId: p.sub, sessionId: p.jti }
  }

  /** Returns the claims of a valid temporary token of `purpose`; anything else is 401. */
  async verifyTemp(token: string, purpose: TempPurpose): Promise<TempClaims | 'expired' | undefined> {
    const v = this.#verify(token)
    if (v === 'expired') return 'expired'
    const p = v?.claims
    if (p?.typ !== 'temp' || p.purpose !== purpose || typeof p.jti !== 'string') return
    return { flowId: p.jti, purpose }
  }
}
