// What each domain event tells the people it concerns: the notification type (the public SDK's
// names where it has one), a title and a description. Pure: no database, no clock.
import type { DomainEvent, EventType } from '../events/types.ts'

/** Every notification type; those of the SDK's INotificationType first, then the platform's own. */
export const NOTIFICATION_TYPES = [
  'invite_received',
  'invite_accepted',
  'invite_rejected',
  'assigned_job',
  'new_deposit',
  'new_transfer',
  'new_withdrawal',
  'JOB_APPLY',
  'JOB_CANCEL',
  'job_delivered',
  'job_completed',
  'escrow_funded',
  'dispute_opened',
  'dispute_decided',
  'review_received',
  'withdrawal_failed',
  'deposit_reversed',
  'referral_signup',
  'referral_job_completed',
  'inspection_ending',
  'identity_verified',
  'identity_rejected',
] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

/**
 * Sent by e-mail unless the user chooses otherwise. Withdrawals and a released payment are left
 * out: their own mails already go out as they happen.
 */
export const DEFAULT_EMAIL_TYPES: readonly NotificationType[] = [
  'invite_received',
  'assigned_job',
  'job_delivered',
  'job_completed',
  'inspection_ending',
  'JOB_CANCEL',
  'escrow_funded',
  'dispute_opened',
  'dispute_decided',
  'new_deposit',
  'deposit_reversed',
  'identity_verified',
  'identity_rejected',
]

export interface Notice {
  type: NotificationType
  title: string
  description: string
  /** the record it is about */
  ref: string
}

type Describe = { [K in EventType]?: (e: DomainEvent<K>) => Notice }

const describe: Describe = {
  'invite.sent': (e) => ({
    type: 'invite_received',
    title: 'New invite',
    description: 'You were invited to a job.',
    ref: e.data.inviteId,
  }),
  'invite.accepted': (e) => ({
    type: 'invite_accepted',
    title: 'Invite accepted',
    description: 'Your invite was accepted; the job has its talent.',
    ref: e.data.inviteId,
  }),
  'invite.declined': (e) => ({
    type: 'invite_rejected',
    title: 'Invite declined',
    description: 'Your invite was declined.',
    ref: e.data.inviteId,
  }),
  'invite.cancelled': (e) => ({
    type: 'invite_rejected',
    title: 'Invite withdrawn',
    description: 'An invite you received was withdrawn by its sender.',
    ref: e.data.inviteId,
  }),
  'application.sent': (e) => ({
    type: 'JOB_APPLY',
    title: 'New application',
    description: 'A talent applied to your job.',
    ref: e.data.applicationId,
  }),
  'application.accepted': (e) => ({
    type: 'assigned_job',
    title: 'Application accepted',
    description: 'Your application was accepted; the job is yours.',
    ref: e.data.collectionId,
  }),
  'application.rejected': (e) => ({
    type: 'JOB_APPLY',
    title: 'Application declined',
    description: 'Your application was declined.',
    ref: e.data.applicationId,
  }),
  'collection.delivered': (e) => ({
    type: 'job_delivered',
    title: 'Job delivered',
    description: 'The talent delivered your job; review it and complete it or ask for changes.',
    ref: e.data.collectionId,
  }),
  'collection.inspection_ending': (e) => ({
    type: 'inspection_ending',
    title: `Job completes in ${e.data.daysLeft} day${e.data.daysLeft === 1 ? '' : 's'}`,
    description: `A delivered job completes by itself on ${e.data.autoCompleteAt.slice(0, 10)} and its escrow is released to the talent, unless the creator completes it, asks for changes or a dispute is raised first.`,
    ref: e.data.collectionId,
  }),
  'collection.completed': (e) => ({
    type: 'job_completed',
    title: 'Job completed',
    description: 'A job you are part of is completed.',
    ref: e.data.collectionId,
  }),
  'collection.cancelled': (e) => ({
    type: 'JOB_CANCEL',
    title: 'Job cancelled',
    description: 'A job you are part of was cancelled.',
    ref: e.data.collectionId,
  }),
  'dispute.opened': (e) => ({
    type: 'dispute_opened',
    title: 'Dispute opened',
    description: 'A dispute was raised on a job you are part of.',
    ref: e.data.collectionId,
  }),
  'dispute.decided': (e) => ({
    type: 'dispute_decided',
    title: 'Dispute settled',
    description: 'The dispute on your job was settled; the escrow is split accordingly.',
    ref: e.data.collectionId,
  }),
  'review.left': (e) => ({
    type: 'review_received',
    title: 'New review',
    description: `You received a review (${e.data.rating} of 5).`,
    ref: e.data.reviewId,
  }),
  'deposit.credited': (e) => ({
    type: 'new_deposit',
    title: 'Deposit received',
    description: `A deposit of ${e.data.amount} ${e.data.coin.toUpperCase()} was credited to your wallet.`,
    ref: e.data.transactionId,
  }),
  'deposit.reversed': (e) => ({
    type: 'deposit_reversed',
    title: 'Deposit reversed',
    description: `A deposit of ${e.data.amount} ${e.data.coin.toUpperCase()} (transaction ${e.data.txHash}) was taken back by the blockchain and is no longer part of your wallet; ${e.data.recovered} ${e.data.coin.toUpperCase()} of it was deducted.`,
    ref: e.data.findingId,
  }),
  'withdrawal.sent': (e) => ({
    type: 'new_withdrawal',
    title: 'Withdrawal sent',
    description: `Your withdrawal of ${e.data.amount} ${e.data.coin.toUpperCase()} was sent.`,
    ref: e.data.withdrawalId,
  }),
  'withdrawal.failed': (e) => ({
    type: 'withdrawal_failed',
    title: 'Withdrawal failed',
    description: `Your withdrawal of ${e.data.amount} ${e.data.coin.toUpperCase()} could not be sent; the amount is back in your wallet.`,
    ref: e.data.withdrawalId,
  }),
  'escrow.funded': (e) => ({
    type: 'escrow_funded',
    title: 'Escrow funded',
    description: `The escrow of a job you are part of is paid ($${e.data.usdAmount}).`,
    ref: e.data.collectionId,
  }),
  'escrow.released': (e) => ({
    type: 'new_transfer',
    title: 'Payment released',
    description: `The escrow of a job you are part of was released ($${e.data.usdAmount}).`,
    ref: e.data.collectionId,
  }),
  'referral.signup': (e) => ({
    type: 'referral_signup',
    title: 'New referral',
    description: 'Someone signed up with your referral code.',
    ref: e.data.userId,
  }),
  'identity.decided': (e) =>
    e.data.status === 'approved'
      ? {
          type: 'identity_verified',
          title: 'Identity verified',
          description: 'Your identity verification was approved.',
          ref: e.data.verificationId,
        }
      : {
          type: 'identity_rejected',
          title: 'Identity verification not approved',
          description: `Your identity verification was not approved${e.data.reason ? `: ${e.data.reason}` : ''}. You may start a new one.`,
          ref: e.data.verificationId,
        },
  'referral.job_completed': (e) => ({
    type: 'referral_job_completed',
    title: 'Referral completed a job',
    description: 'An account you referred completed its first job.',
    ref: e.data.userId,
  }),
}

/** The notice an event gives, or null when it gives none (e.g. a new collection: a feed entry). */
export function noticeOf(event: DomainEvent): Notice | null {
  const fn = describe[event.type] as ((e: DomainEvent) => Notice) | undefined
  return fn ? fn(event) : null
}

/** Who is notified: the event's audience, except whoever caused it. */
export function recipientsOf(event: DomainEvent): string[] {
  return event.audience.filter((u) => u !== event.actorId)
}
