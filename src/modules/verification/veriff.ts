// Veriff as the identity provider, over its public API v1: POST /v1/sessions (X-AUTH-CLIENT: the
// integration's API key), POST /v1/sessions/{id}/media and PATCH /v1/sessions/{id} (each also
// signed: X-HMAC-SIGNATURE, the hex HMAC-SHA256 of the exact body with the shared secret), and the
// decision webhook Veriff sends back, signed the same way.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { AppError } from '../../http/errors.ts'
import type { IdentityProvider, SessionPerson, StartedSession } from './provider.ts'

export interface VeriffSettings {
  apiKey: string
  sharedSecret: string
  baseUrl: string
  /** where Veriff's hosted flow sends the user back (PUBLIC_URL) */
  callback: string
  timeoutMs?: number
}

/** Veriff's signature of a body: hex HMAC-SHA256 with the shared secret. */
export function veriffSignature(body: string | Buffer, sharedSecret: string): string {
  return createHmac('sha256', sharedSecret).update(body).digest('hex')
}

/** Whether `signature` (hex, any case) is the shared secret's signature of `body`, in constant time. */
export function veriffSignatureValid(
  body: string | Buffer,
  signature: string | undefined,
  sharedSecret: string,
) {
  if (!signature || !/^[0-9a-fA-F]{64}$/.test(signature)) return false
  const expected = Buffer.from(veriffSignature(body, sharedSecret), 'hex')
  return timingSafeEqual(expected, Buffer.from(signature.toLowerCase(), 'hex'))
}

const unavailable = (what: string) =>
  new AppError('IDENTITY_PROVIDER_UNAVAILABLE', `Veriff did not accept the ${what}; try again shortly`)

export class VeriffProvider implements IdentityProvider {
  readonly name = 'veriff' as const
  constructor(private readonly s: VeriffSettings) {}

  async #call(method: 'POST' | 'PATCH', path: string, payload: unknown, signed: boolean, what: string) {
    const body = JSON.stringify(payload)
    let res: Response
    try {
      res = await fetch(`${this.s.baseUrl}${path}`, {
        method,
        headers: {
          'content-type': 'application/json',
          'x-auth-client': this.s.apiKey,
          ...(signed ? { 'x-hmac-signature': veriffSignature(body, this.s.sharedSecret) } : {}),
        },
        body,
        signal: AbortSignal.timeout(this.s.timeoutMs ?? 10_000),
        redirect: 'error',
      })
    } catch {
      throw unavailable(what)
    }
    const text = await res.text().catch(() => '')
    if (!res.ok) throw unavailable(what)
    try {
      return JSON.parse(text) as Record<string, any>
    } catch {
      throw unavailable(what)
    }
  }

  async start(verificationId: string, p: SessionPerson): Promise<StartedSession> {
    const answer = await this.#call(
      'POST',
      '/v1/sessions',
      {
        verification: {
          callback: this.s.callback,
          person: {
            firstName: p.firstName,
            lastName: p.lastName,
            gender: p.gender,
            dateOfBirth: p.dateOfBirth,
          },
          document: { number: p.documentNumber, type: p.documentType, country: p.country },
          address: { fullAddress: p.fullAddress },
          vendorData: verificationId,
        },
      },
      false,
      'new session',
    )
    const v = answer.verification
    if (!v || typeof v.id !== 'string' || typeof v.url !== 'string') throw unavailable('new session')
    return {
      id: v.id,
      url: v.url,
      host: typeof v.host === 'string' ? v.host : new URL(v.url).origin,
      sessionToken: typeof v.sessionToken === 'string' ? v.sessionToken : '',
    }
  }

  async sendMedia(sessionId: string, image: { context: string; mime: string; bytes: Buffer }) {
    await this.#call(
      'POST',
      `/v1/sessions/${encodeURIComponent(sessionId)}/media`,
      {
        image: {
          context: image.context,
          content: `data:${image.mime};base64,${image.bytes.toString('base64')}`,
          timestamp: new Date().toISOString(),
        },
      },
      true,
      'image',
    )
  }

  async submit(sessionId: string) {
    await this.#call(
      'PATCH',
      `/v1/sessions/${encodeURIComponent(sessionId)}`,
      { verification: { status: 'submitted' } },
      true,
      'submission',
    )
  }
}
