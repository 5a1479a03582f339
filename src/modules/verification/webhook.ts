// Veriff's decision webhook: the X-AUTH-CLIENT header must be the integration's API key and
// X-HMAC-SIGNATURE the hex HMAC-SHA256 of the raw body with the shared secret (checked before the
// body is read any further). The decision is matched to its session by Veriff's session id (and the
// vendorData this service sent, when present); an unknown session is 404, a decision sent again is
// accepted once and changes nothing the second time.
import { timingSafeEqual } from 'node:crypto'
import { AppError, errors } from '../../http/errors.ts'
import { verificationRepo } from './repo.ts'
import type { Decision, VerificationService } from './service.ts'
import { veriffSignatureValid } from './veriff.ts'

const DECISIONS: Record<string, Decision['status']> = {
  approved: 'approved',
  declined: 'declined',
  resubmission_requested: 'resubmission_requested',
  expired: 'expired',
  abandoned: 'abandoned',
  review: 'review',
}

export interface VeriffDecisionBody {
  verification: {
    id: string
    status: string
    reason?: string | null | undefined
    reasonCode?: number | null | undefined
    vendorData?: string | null | undefined
    document?:
      | { validFrom?: string | null | undefined; validUntil?: string | null | undefined }
      | null
      | undefined
  }
}

export class VeriffWebhook {
  constructor(
    private readonly deps: {
      verification: VerificationService
      veriff: { apiKey: string; sharedSecret: string } | undefined
    },
  ) {}

  /** 404 when Veriff is not configured; 401 INVALID_SIGNATURE unless the headers sign `raw`. */
  checkSignature(raw: string, headers: { client?: string | undefined; signature?: string | undefined }) {
    const veriff = this.deps.veriff
    if (!veriff) throw errors.notFound('Veriff integration')
    const client = Buffer.from(headers.client ?? '')
    const key = Buffer.from(veriff.apiKey)
    if (client.length !== key.length || !timingSafeEqual(client, key))
      throw new AppError('INVALID_SIGNATURE', 'X-AUTH-CLIENT is missing or is not this integration’s API key')
    if (!veriffSignatureValid(raw, headers.signature, veriff.sharedSecret))
      throw new AppError('INVALID_SIGNATURE', 'X-HMAC-SIGNATURE is missing or does not sign this body')
  }

  async apply(body: VeriffDecisionBody) {
    const v = body.verification
    const status = DECISIONS[v.status]
    if (!status) throw errors.field('/verification/status', `unknown decision status "${v.status}"`)
    const { db } = this.deps.verification.deps
    const row = await verificationRepo.byProviderSession(db, 'veriff', v.id)
    if (!row || (v.vendorData && v.vendorData !== row.id)) throw errors.notFound('Verification session')
    const { row: after, changed } = await this.deps.verification.decide(
      row.id,
      {
        status,
        reason: v.reason ?? '',
        reasonCode: v.reasonCode ?? null,
        decidedBy: 'veriff',
        decision: body as unknown as Record<string, unknown>,
        documentValidFrom: v.document?.validFrom ?? null,
        documentValidUntil: v.document?.validUntil ?? null,
      },
      { from: ['created', 'submitted', 'review'], repeatable: true, actorId: null },
    )
    return { verificationId: after.id, status: after.status, changed }
  }
}
