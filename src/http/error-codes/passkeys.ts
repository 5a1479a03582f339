// Codes of operators' passkeys (WebAuthn) and of clearing an operator's second factor.
import { code } from './define.ts'

export const PASSKEY_CODES = {
  PASSKEY_CHALLENGE_INVALID: code(
    400,
    'The passkey answer does not sign a challenge this session asked for and has not used: unknown, already used, expired (5 minutes), of another session, or for the other ceremony.',
    'Ask for new options (POST /v1/admin/session/passkey/options or /v1/admin/passkeys/options) and let the browser answer them once.',
  ),
  PASSKEY_INVALID: code(
    400,
    'The passkey answer does not verify: not a passkey of this account, a wrong origin or RP ID, no user verification, a bad signature, or a signature counter that did not move forward (a cloned authenticator).',
    'Use a passkey registered to this account on the console’s own address; a cloned authenticator is refused.',
  ),
  PASSKEY_NOT_REGISTERED: code(
    422,
    'The operator has no passkey: the admin pages are unlocked with the authenticator app.',
    'Unlock with the authenticator code, then add a passkey (POST /v1/admin/passkeys/options).',
  ),
  PASSKEY_UNLOCK_REQUIRED: code(
    403,
    'The account has a passkey and this session is not unlocked with it: two-factor set-up (#41, #42) on such an account needs the passkey first, so that an access token alone cannot add a factor.',
    'Unlock the session with the passkey (POST /v1/admin/session/passkey/options, then POST /v1/admin/session/passkey), then set up two-factor within the unlocked window.',
  ),
  NO_SECOND_FACTOR: code(
    409,
    'The account has none of the second factors asked to be cleared (no authenticator app, no passkey).',
    'Nothing to clear; check the account on GET /v1/admin/users/{id}.',
  ),
} as const
