// The job's state machine: one table of transitions with who may make each. Every route that
// moves a job (invites, applications, delivery, completion, cancellation, disputes, the escrow's
// payment and release, and PATCH /v1/collection/{id} {status}) checks its step here, so a step
// that is not in the table is refused the same way everywhere. It lives with collections, whose
// escrow link moves a job as its escrow is paid and released; work reaches it through module.ts.
import { errors } from '../../http/errors.ts'

/** The stored collection statuses of a job. */
export type JobStatus =
  | 'pending'
  | 'waiting'
  | 'ongoing'
  | 'disputed'
  | 'completed'
  | 'resolved'
  | 'cancelled'

/** A job's phase: its status, with `delivered` for an ongoing job its talent has delivered. */
export type Phase = JobStatus | 'delivered'

/**
 * Who makes a step: the job's creator, its assigned talent, the talent an invite names, an
 * arbiter (the admin role), or the escrow's payment events. Anyone else is a `stranger`.
 */
export type Party = 'creator' | 'talent' | 'invitee' | 'arbiter' | 'payment'

export type Action =
  | 'assign'
  | 'fund'
  | 'deliver'
  | 'requestChanges'
  | 'complete'
  | 'payOut'
  | 'cancel'
  | 'dispute'
  | 'settle'
  | 'decide'

export interface Transition {
  action: Action
  from: readonly Phase[]
  to: Phase
  by: readonly Party[]
  /** the step needs an assigned talent (otherwise it does not happen) */
  needsTalent?: boolean
  /** what the step is, for messages and the docs */
  what: string
}

export const TRANSITIONS: readonly Transition[] = [
  {
    action: 'assign',
    from: ['pending'],
    to: 'waiting',
    by: ['invitee', 'creator'],
    what: 'assign a talent (the invitee accepts an invite, or the creator accepts an application)',
  },
  {
    action: 'fund',
    from: ['pending', 'waiting'],
    to: 'ongoing',
    by: ['payment'],
    needsTalent: true,
    what: 'start the work (the escrow is paid and a talent is assigned)',
  },
  { action: 'deliver', from: ['ongoing'], to: 'delivered', by: ['talent'], what: 'deliver the job' },
  {
    action: 'requestChanges',
    from: ['delivered'],
    to: 'ongoing',
    by: ['creator'],
    what: 'ask for changes to the delivery',
  },
  {
    action: 'complete',
    from: ['delivered'],
    to: 'completed',
    by: ['creator'],
    what: 'complete the job (accept the delivery and release the escrow)',
  },
  {
    action: 'payOut',
    from: ['ongoing', 'delivered'],
    to: 'completed',
    by: ['payment'],
    what: 'complete the job by releasing the whole escrow',
  },
  {
    action: 'cancel',
    from: ['pending', 'waiting', 'ongoing'],
    to: 'cancelled',
    by: ['creator'],
    what: 'cancel the job (after delivery, raise a dispute instead)',
  },
  {
    action: 'dispute',
    from: ['ongoing', 'delivered'],
    to: 'disputed',
    by: ['creator', 'talent'],
    what: 'raise a dispute',
  },
  {
    action: 'settle',
    from: ['disputed'],
    to: 'resolved',
    by: ['creator', 'talent'],
    what: 'settle the dispute (both parties accept one split of the escrow)',
  },
  {
    action: 'decide',
    from: ['disputed'],
    to: 'resolved',
    by: ['arbiter'],
    what: 'decide the dispute (an arbiter splits the escrow)',
  },
]

/** Phases nothing moves out of. */
export const FINAL_PHASES: readonly Phase[] = ['completed', 'resolved', 'cancelled']

/** Phases after which each party may review the other. */
export const REVIEWABLE_PHASES: readonly Phase[] = ['completed', 'resolved']

const PARTY_NAMES: Record<Party, string> = {
  creator: 'the job’s creator',
  talent: 'the job’s assigned talent',
  invitee: 'the invited talent',
  arbiter: 'an arbiter',
  payment: 'the escrow’s payment',
}

export function transitionOf(action: Action): Transition {
  return TRANSITIONS.find((t) => t.action === action)!
}

export function phaseOf(job: { status: string; recipientCompletedJob: boolean }): Phase {
  if (job.status === 'ongoing' && job.recipientCompletedJob) return 'delivered'
  return job.status as Phase
}

/** The stored form of a phase. */
export function storedAs(phase: Phase): { status: JobStatus; recipientCompletedJob: boolean } {
  return phase === 'delivered'
    ? { status: 'ongoing', recipientCompletedJob: true }
    : { status: phase, recipientCompletedJob: false }
}

/**
 * Checks that `party` may take `action` on a job in `phase` and returns the next phase. Refusals:
 * 403 FORBIDDEN for a party the step is not theirs, 409 JOB_ALREADY_IN_STATE when the job is
 * already where the step leads, 409 JOB_CLOSED when it is closed (completed, resolved, cancelled),
 * 422 JOB_STATE_MISMATCH when the step does not start from the job's phase.
 */
export function checkTransition(action: Action, phase: Phase, party: Party | 'stranger'): Phase {
  const t = transitionOf(action)
  if (party === 'stranger' || !t.by.includes(party))
    throw errors.forbidden(`Only ${t.by.map((p) => PARTY_NAMES[p]).join(' or ')} may ${t.what}`)
  if (phase === t.to) throw errors.named('JOB_ALREADY_IN_STATE', `This job is already ${phase}`)
  if (FINAL_PHASES.includes(phase))
    throw errors.named('JOB_CLOSED', `This job is ${phase}; it can no longer change`)
  if (!t.from.includes(phase))
    throw errors.named(
      'JOB_STATE_MISMATCH',
      `Cannot ${t.what}: the job must be ${t.from.join(' or ')}, and it is ${phase}`,
    )
  return t.to
}

/**
 * The status a job takes when its escrow is paid: `ongoing` once a talent is assigned (from
 * pending or waiting); otherwise unchanged (a funded job without a talent stays pending).
 */
export function statusAfterPayment(job: {
  status: string
  recipientCompletedJob: boolean
  assigned: boolean
}) {
  const t = transitionOf('fund')
  const phase = phaseOf(job)
  return job.assigned && t.from.includes(phase) ? storedAs(t.to).status : (job.status as JobStatus)
}

/** The status a job takes once its whole escrow was released: completed, unless it is closed. */
export function statusAfterRelease(job: { status: string; recipientCompletedJob: boolean }) {
  return transitionOf('payOut').from.includes(phaseOf(job)) ? 'completed' : (job.status as JobStatus)
}

/** An escrow may be linked (funded) only while the job is open and not in dispute. */
export function assertFundable(job: { status: string; recipientCompletedJob: boolean }) {
  const phase = phaseOf(job)
  if (FINAL_PHASES.includes(phase) || phase === 'disputed')
    throw errors.named('JOB_NOT_FUNDABLE', `This job is ${phase}; it cannot be funded`)
}

/**
 * While a dispute is open, and once the job is cancelled or its dispute resolved, only the
 * split that ends it (work's SPLIT_JOB) moves the escrow: no release, no refund by anyone else.
 */
export function escrowFrozen(job: { status: string }) {
  return job.status === 'disputed' || job.status === 'resolved' || job.status === 'cancelled'
}

/** Statuses a deliverable (a child collection without an escrow of its own) moves between. */
export const DELIVERABLE_STATUSES = ['pending', 'ongoing', 'completed'] as const
export type DeliverableStatus = (typeof DELIVERABLE_STATUSES)[number]
