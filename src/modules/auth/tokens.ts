// JWTs (HS256). A permanent token names a row of the sessions table (`jti`), so revoking the row
// revokes the token at once. A temporary token names one auth flow and one purpose; it is refused
// by every step of another purpose. Its subject is the flow id, never the account: a token issued
// for an unknown email looks exactly like one issued for a real account. Every token must carry
// `exp`; one without it is refused.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose'
import type { Clock } from '../../platform/clock.ts'

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

export class TokenService {
  readonly #key: Uint8Array
  constructor(
    secret: string,
    private readonly clock: Clock,
  ) {
    this.#key = new TextEncoder().encode(secret)
  }

  async #sign(claims: Record<string, unknown>, subject: string, jti: string, expiresAt: number) {
    const now = this.clock.now().getTime()
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
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

  async #verify(token: string) {
    try {
      const { payload } = await jwtVerify(token, this.#key, {
        issuer: ISSUER,
        algorithms: ['HS256'],
        // jose accepts a token without `exp` unless told otherwise: such a token never expires.
        requiredClaims: ['exp', 'sub', 'jti'],
        currentDate: this.clock.now(),
      })
      return payload
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) return 'expired' as const
      return undefined
    }
  }

  /** Returns the claims of a valid permanent token, or undefined. */
  async verifyAccess(token: string): Promise<AccessClaims | undefined> {
    const p = await this.#verify(token)
    if (!p || p === 'expired' || p.typ !== 'access' || typeof p.sub !== 'string' || typeof p.jti !== 'string')
      return
    return { userId: p.sub, sessionId: p.jti }
  }

  /** Returns the claims of a valid temporary token of `purpose`; anything else is 401. */
  async verifyTemp(token: string, purpose: TempPurpose): Promise<TempClaims | 'expired' | undefined> {
    const p = await this.#verify(token)
    if (p === 'expired') return 'expired'
    if (p?.typ !== 'temp' || p.purpose !== purpose || typeof p.jti !== 'string') return
    return { flowId: p.jti, purpose }
  }
}
