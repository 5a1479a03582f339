// Codes of collections (jobs and funding requests) as records: nesting, changes, deletion, types.
import { code } from './define.ts'

export const COLLECTION_CODES = {
  COLLECTION_HAS_ESCROW: code(
    409,
    'The collection already has another escrow.',
    'Reload the collection and pay (or cancel) the escrow it has.',
  ),
  COLLECTION_LOCKED: code(
    409,
    'The collection’s escrow is paid: the collection can no longer be changed.',
    'Do not retry; the terms are fixed once paid.',
  ),
  COLLECTION_ESCROW_UNRELEASED: code(
    409,
    'A paid escrow on the collection (or one of its children) has not been released yet: it cannot be deleted.',
    'Release (or settle) the escrow first, then delete.',
  ),
  COLLECTION_NESTING_TOO_DEEP: code(
    422,
    'A child collection cannot have children of its own (one level only).',
    'Add the collection under a top-level collection.',
  ),
  COLLECTION_TYPE_EXISTS: code(
    409,
    'A collection type with this value exists (in any case, retired or not).',
    'Choose another value, or restore the retired type.',
  ),
  JOB_IN_DISPUTE: code(
    422,
    'The job is in dispute: its escrow is frozen until the dispute is settled or decided.',
    'Settle the dispute (or wait for the decision) first.',
  ),
} as const
