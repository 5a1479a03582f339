// Codes of accounts: two-factor settings, operator roles and suspensions, referrals, connections.
import { code } from './define.ts'

export const ACCOUNT_CODES = {
  EMAIL_TAKEN: code(
    409,
    'The email belongs to another account. Answered as `data.reason` beside `data.code` CONFLICT, which the API contract fixes for this case.',
    'Sign in instead, reset the password, or use another email.',
  ),
  TWO_FACTOR_ALREADY_ENABLED: code(
    409,
    'Two-factor authentication is on already. Answered as `data.reason` beside `data.code` CONFLICT, which the API contract fixes for this case.',
    'Turn it off first (POST /v1/account/deactivate/2fa) to set up another method.',
  ),
  TWO_FACTOR_NOT_ENABLED: code(
    409,
    'Two-factor authentication is not on.',
    'Turn it on first (POST /v1/account/initiate/2fa).',
  ),
  TWO_FACTOR_USES_APP: code(
    422,
    'Two-factor uses an authenticator app: no code is sent by email.',
    'Send the app’s current code instead.',
  ),
  ACCOUNT_HAS_NO_EMAIL: code(
    422,
    'The account has no email address (a web3 account not onboarded).',
    'Add an email (onboarding) or use an authenticator app.',
  ),
  ACCOUNT_NOT_VERIFIED: code(
    422,
    'Only a verified account can be an admin or an operator.',
    'Have the account verify its email first.',
  ),
  ACCOUNT_SUSPENDED: code(
    422,
    'A suspended account cannot be an admin or an operator.',
    'Lift the suspension first.',
  ),
  ACCOUNT_ALREADY_SUSPENDED: code(409, 'The account is suspended already.', 'Nothing to do.'),
  ACCOUNT_NOT_SUSPENDED: code(409, 'The account is not suspended.', 'Nothing to do.'),
  ROLE_ALREADY_SET: code(
    409,
    'The account has this role already (admin, or the operator role asked).',
    'Nothing to do.',
  ),
  ROLE_NOT_HELD: code(409, 'The account is not an admin.', 'Nothing to do.'),
  OWN_ACCOUNT_REFUSED: code(
    409,
    'An operator cannot change their own role, suspend themselves, or decide their own identity verification.',
    'Ask another admin.',
  ),
  ROLE_SET_BY_CONFIG: code(
    409,
    'The account is an admin by ADMIN_EMAILS: its role is not changed through the API.',
    'Remove it from ADMIN_EMAILS first.',
  ),
  AUTHENTICATOR_REQUIRED: code(
    422,
    'Mailed codes do not unlock the admin pages: the operator must turn on an authenticator app.',
    'Turn on an authenticator app (POST /v1/account/initiate/2fa with type google_auth), then send its code.',
  ),
  LAST_ADMIN: code(
    409,
    'The last admin keeps the role and cannot be suspended.',
    'Make another account admin first.',
  ),
} as const
