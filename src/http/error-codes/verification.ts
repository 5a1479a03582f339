// Codes of identity verification: an action that needs a verified identity, the state of a
// verification session, and the identity provider's signed callbacks.
import { code } from './define.ts'

export const VERIFICATION_CODES = {
  IDENTITY_VERIFICATION_REQUIRED: code(
    403,
    'The action needs a verified identity (KYC_REQUIRED_FOR), and the account has none; `data.action`, `data.coin` and `data.kycStatus` say which rule and where the account stands.',
    'Start a verification with POST /v1/user-verification/veriff/session/new, send the images, and try again once it is approved.',
  ),
  VERIFICATION_IN_PROGRESS: code(
    409,
    'The account has a verification session in progress already (or is verified already).',
    'Continue that session (send its images), or delete it with /v1/user-verification/veriff/session/delete first.',
  ),
  VERIFICATION_NOT_OPEN: code(
    409,
    'The verification session no longer takes images or changes: it was submitted, decided or deleted.',
    'Read its state with GET /v1/user-verification/veriff/session/attempts; start a new one if it was declined.',
  ),
  VERIFICATION_ATTEMPTS_EXHAUSTED: code(
    429,
    'The account started as many verification sessions as allowed (VERIFICATION_MAX_ATTEMPTS).',
    'Contact support; an operator can review the earlier attempts.',
  ),
  VERIFICATION_NOT_SUBMITTED: code(
    409,
    'An operator may decide only a session whose images are all in (status submitted).',
    'Wait until the user sent the face and the document images.',
  ),
  INVALID_SIGNATURE: code(
    401,
    'The callback’s X-HMAC-SIGNATURE (HMAC-SHA256 of the raw body with the shared secret) or X-AUTH-CLIENT is missing or wrong.',
    'Sign the exact body sent with the shared secret of the integration.',
  ),
  IDENTITY_PROVIDER_UNAVAILABLE: code(
    503,
    'The identity provider (Veriff) did not answer or refused the call; nothing was kept.',
    'Try again shortly.',
  ),
} as const
