// Codes of the social parts: referrals, connection filters, chat, webhooks, record stores and files.
import { code } from './define.ts'

export const SOCIAL_CODES = {
  ONBOARDING_ALREADY_COMPLETED: code(
    409,
    'The web3 account has already completed onboarding.',
    'Sign in with the wallet (#10, #11) instead.',
  ),
  REFERRAL_CODE_USED_UP: code(
    422,
    'The referral code has been used the allowed number of times.',
    'Sign up without it, or with another code.',
  ),
  REFERRAL_INVITES_EXHAUSTED: code(
    422,
    'The daily number of referral invites is reached; the message says how many are left.',
    'Invite the rest tomorrow.',
  ),
  CONNECTION_RULE_EXISTS: code(
    409,
    'The caller already has a rule of this key for this event.',
    'Change it with PATCH /v1/conn-filter/.',
  ),
  COLLECTION_NO_TALENT: code(
    422,
    'The collection has no talent assigned yet: there is nobody to talk to.',
    'Assign a talent first.',
  ),
  WEBHOOK_LIMIT_REACHED: code(
    422,
    'The account has the most webhook endpoints allowed.',
    'Delete an endpoint first.',
  ),
  SCHEMA_EXISTS: code(409, 'A collection schema with this name already exists.', 'Choose another name.'),
  SCHEMA_HAS_RECORDS: code(409, 'The collection schema holds records.', 'Delete its records first.'),
  RECORD_VALUE_TAKEN: code(
    409,
    'Another record already has this value of a unique field.',
    'Choose another value.',
  ),
  SIGNING_KEY_UNKNOWN: code(
    403,
    'The signed URL names a signing key (`kid`) the service does not accept: it was signed before a rotation of URL_SIGNING_SECRET whose overlap has ended, or by another deployment.',
    'Ask for a new URL (GET /v1/upload/url/{id}); do not retry this one.',
  ),
} as const
