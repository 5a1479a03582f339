// Codes of the work between a creator and a talent: job steps, invites, applications, progress,
// disputes and reviews.
import { code } from './define.ts'

export const WORK_CODES = {
  JOB_ALREADY_IN_STATE: code(
    409,
    'The job is already where this step leads (e.g. already delivered).',
    'Reload the job; nothing to do.',
  ),
  JOB_CLOSED: code(
    409,
    'The job is completed, resolved or cancelled: it can no longer change.',
    'Do not retry.',
  ),
  JOB_STATE_MISMATCH: code(
    422,
    'The step does not start from the job’s current status (e.g. delivering a job that is not ongoing).',
    'Reload the job and take a step its status allows.',
  ),
  JOB_NOT_FUNDABLE: code(409, 'The job is closed or in dispute: it cannot be funded.', 'Do not fund it.'),
  JOB_HAS_TALENT: code(409, 'The job already has its talent.', 'Do not retry; the job is taken.'),
  JOB_INVITE_ONLY: code(
    422,
    'A private job takes invites, not applications.',
    'Ask the creator for an invite.',
  ),
  COLLECTION_NOT_OPEN: code(
    409,
    'The job is no longer open (ongoing, completed, cancelled, …): it takes no more invites or applications.',
    'Do not retry.',
  ),
  CHILD_COLLECTION_NOT_ALLOWED: code(
    422,
    'Invites and applications go to the job itself, not to one of its child collections.',
    'Send it to the parent job.',
  ),
  STATUS_CHANGE_NOT_ALLOWED: code(
    422,
    'This status cannot be set by a plain update: completing, cancelling or funding a job has its own step.',
    'Use the step the message names (e.g. POST /v1/collection/{id}/complete).',
  ),
  PROGRESS_FOLLOWS_DELIVERABLES: code(
    422,
    'The job’s progress follows its deliverables.',
    'Update the progress of its deliverables instead.',
  ),
  PAYMENT_PERCENTAGE_UNAVAILABLE: code(
    422,
    'paymentPercentage needs a paid escrow and an assigned talent.',
    'Cancel without paymentPercentage (or with 0).',
  ),
  INVITE_ALREADY_PENDING: code(
    409,
    'This talent already has a pending invite to this job.',
    'Wait for the answer, or cancel the invite first.',
  ),
  INVITE_ALREADY_ANSWERED: code(
    409,
    'The invite is no longer pending (accepted, declined or cancelled).',
    'Reload the invite; do not retry.',
  ),
  APPLICATION_ALREADY_PENDING: code(
    409,
    'The caller already has a pending application to this job.',
    'Wait for the answer.',
  ),
  APPLICATION_ALREADY_ANSWERED: code(
    409,
    'The application is no longer pending (accepted or rejected).',
    'Reload the application; do not retry.',
  ),
  DISPUTE_ESCROW_NOT_HELD: code(
    422,
    'Only a job whose escrow is paid and not fully released can be disputed.',
    'Fund the job first; a released job cannot be disputed.',
  ),
  DISPUTE_SPLIT_MISMATCH: code(
    422,
    'creatorAmount and ownerAmount do not add up to what remains in escrow; `data.errors` names the total.',
    'Send two amounts that add up to the remaining escrow.',
  ),
  DISPUTE_SETTLED: code(
    409,
    'The dispute is settled (agreed or decided) already.',
    'Reload the job; do not retry.',
  ),
  DISPUTE_NO_PROPOSAL: code(422, 'There is no proposal to accept.', 'Propose a split first.'),
  DISPUTE_PROPOSAL_MISMATCH: code(
    409,
    'The amounts sent are not those of the current proposal.',
    'Reload the dispute and accept the proposed amounts.',
  ),
  REVIEW_NOT_OPEN: code(
    422,
    'A job is reviewed once it is completed or its dispute resolved.',
    'Review it later.',
  ),
  REVIEW_ALREADY_SENT: code(409, 'The caller has already reviewed this job.', 'Do not retry.'),
} as const
