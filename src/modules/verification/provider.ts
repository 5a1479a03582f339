// The identity provider behind verification sessions. Every call may use the network, so the
// service makes them outside any database transaction. The built-in provider is the operator
// review: nothing leaves the service, and operators decide on the console.
import { randomBytes } from 'node:crypto'

export interface SessionPerson {
  firstName: string
  lastName: string
  gender: string
  dateOfBirth: string
  fullAddress: string
  country: string
  documentType: string
  documentNumber: string
}

export interface StartedSession {
  /** the provider's session id */
  id: string
  /** where the user continues */
  url: string
  host: string
  sessionToken: string
}

export interface IdentityProvider {
  readonly name: 'operator' | 'veriff'
  /** Opens a session at the provider for the verification `verificationId` (its vendorData). */
  start(verificationId: string, person: SessionPerson): Promise<StartedSession>
  /** Passes one image on (the operator review keeps it in the private store only). */
  sendMedia(sessionId: string, image: { context: string; mime: string; bytes: Buffer }): Promise<void>
  /** Tells the provider every image is in, so it decides. */
  submit(sessionId: string): Promise<void>
}

/** Operators review the images on the console (/admin, Verifications). */
export class OperatorReview implements IdentityProvider {
  readonly name = 'operator' as const
  constructor(private readonly publicUrl: string) {}

  async start(verificationId: string): Promise<StartedSession> {
    return {
      id: verificationId,
      url: `${this.publicUrl}/v1/user-verification/veriff/session/media`,
      host: this.publicUrl,
      sessionToken: randomBytes(16).toString('hex'),
    }
  }

  async sendMedia(): Promise<void> {}

  async submit(): Promise<void> {}
}
