// Which domain events are feed entries, under the public SDK's FEED_TYPES, and their text.
import type { EventType } from '../events/types.ts'

export const FEED_TYPES = [
  'collection_invite',
  'collection_invite_rejected',
  'collection_invite_accepted',
  'collection_invite_cancelled',
  'collection_created',
  'collection_update',
  'collection_delivered',
  'collection_cancelled',
  'collection_completed',
  'collection_reviewed',
  'payment_released',
  'referral_signup',
  'referral_job_completion',
] as const
export type FeedType = (typeof FEED_TYPES)[number]

export const FEED_OF: Partial<Record<EventType, { type: FeedType; title: string; description: string }>> = {
  'collection.created': { type: 'collection_created', title: 'New job', description: 'A job was posted.' },
  'invite.sent': {
    type: 'collection_invite',
    title: 'Invite sent',
    description: 'A talent was invited to a job.',
  },
  'invite.declined': {
    type: 'collection_invite_rejected',
    title: 'Invite declined',
    description: 'An invite to a job was declined.',
  },
  'invite.accepted': {
    type: 'collection_invite_accepted',
    title: 'Invite accepted',
    description: 'A talent joined a job.',
  },
  'invite.cancelled': {
    type: 'collection_invite_cancelled',
    title: 'Invite withdrawn',
    description: 'An invite to a job was withdrawn.',
  },
  'collection.delivered': {
    type: 'collection_delivered',
    title: 'Job delivered',
    description: 'A job was delivered.',
  },
  'collection.cancelled': {
    type: 'collection_cancelled',
    title: 'Job cancelled',
    description: 'A job was cancelled.',
  },
  'collection.completed': {
    type: 'collection_completed',
    title: 'Job completed',
    description: 'A job was completed.',
  },
  'review.left': {
    type: 'collection_reviewed',
    title: 'New review',
    description: 'A finished job was reviewed.',
  },
  'escrow.released': {
    type: 'payment_released',
    title: 'Payment released',
    description: 'The payment of a job was released.',
  },
  'referral.signup': {
    type: 'referral_signup',
    title: 'New referral',
    description: 'Someone signed up with a referral code.',
  },
  'referral.job_completed': {
    type: 'referral_job_completion',
    title: 'Referral completed a job',
    description: 'A referred account completed its first job.',
  },
}

/** The event of an entry a user posted (POST /v1/feeds/): its type, title and text are its own. */
export const POSTED: EventType = 'feed.posted'

/** The event types that are feed entries (for the SQL filter). */
export const FEED_EVENT_TYPES = [...(Object.keys(FEED_OF) as EventType[]), POSTED]

/** The event types behind one feed type, posted entries aside (matched on their own type). */
export function eventTypesOf(type: FeedType): EventType[] {
  return FEED_EVENT_TYPES.filter((e) => FEED_OF[e]?.type === type)
}
