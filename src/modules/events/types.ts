// The domain events of the product: their names and the data each carries. Amounts are strings
// in coin units (as the API shows them), ids are record ids.

/** the event service (built by module.ts): other modules name its type from here */
export type { EventService, EventWrites } from './service.ts'

export interface EventData {
  /** a collection (job) was created */
  'collection.created': { collectionId: string; title: string; type: string }
  /** the creator invited a talent */
  'invite.sent': { inviteId: string; collectionId: string; receiverId: string }
  'invite.accepted': { inviteId: string; collectionId: string }
  'invite.declined': { inviteId: string; collectionId: string }
  'invite.cancelled': { inviteId: string; collectionId: string }
  /** a talent applied to a job */
  'application.sent': { applicationId: string; collectionId: string }
  'application.accepted': { applicationId: string; collectionId: string }
  'application.rejected': { applicationId: string; collectionId: string }
  'collection.delivered': { collectionId: string }
  'collection.completed': { collectionId: string }
  /** a delivered job completes by itself in `daysLeft` days (at `autoCompleteAt`) unless answered */
  'collection.inspection_ending': { collectionId: string; daysLeft: number; autoCompleteAt: string }
  'collection.cancelled': { collectionId: string }
  'dispute.opened': { disputeId: string; collectionId: string }
  'dispute.decided': { disputeId: string; collectionId: string }
  'review.left': { reviewId: string; collectionId: string; rating: number }
  /** a deposit to a user's wallet was credited */
  'deposit.credited': { transactionId: string; coin: string; amount: string; txHash: string | null }
  /** a credited deposit that a deep chain reorganisation took back was reversed by an operator
   * (`amount`: the deposit; `recovered`: what was taken back from the wallet) */
  'deposit.reversed': { findingId: string; coin: string; amount: string; recovered: string; txHash: string }
  'withdrawal.sent': { withdrawalId: string; coin: string; amount: string; txHash: string | null }
  'withdrawal.failed': { withdrawalId: string; coin: string; amount: string; reason: string }
  /** an escrow's payment was confirmed (`usdAmount`: the job's price in USD) */
  'escrow.funded': { escrowId: string; collectionId: string; usdAmount: string }
  /** an escrow's payouts were all confirmed (or, for a cancelled job, its split was paid) */
  'escrow.released': { escrowId: string; collectionId: string; usdAmount: string }
  /** an account signed up with the referral code of `referrerId` */
  'referral.signup': { referrerId: string; userId: string }
  /** a referred account completed its first job */
  'referral.job_completed': { referrerId: string; userId: string; collectionId: string }
  /** an identity verification was decided (by an operator or the provider); `reason` for a refusal */
  'identity.decided': { verificationId: string; status: string; reason: string }
  /** a user posted a feed entry of their own (POST /v1/feeds/) */
  'feed.posted': { feedType: string; title: string; description: string; data: string }
  /** an account was deleted (#46): modules that keep personal data of it erase theirs */
  'account.deleted': { userId: string }
  /** the owner of a webhook endpoint asked for a test delivery to it (to that endpoint only) */
  'webhook.test': { endpointId: string }
}

export type EventType = keyof EventData

export const EVENT_TYPES = [
  'collection.created',
  'invite.sent',
  'invite.accepted',
  'invite.declined',
  'invite.cancelled',
  'application.sent',
  'application.accepted',
  'application.rejected',
  'collection.delivered',
  'collection.completed',
  'collection.inspection_ending',
  'collection.cancelled',
  'dispute.opened',
  'dispute.decided',
  'review.left',
  'deposit.credited',
  'deposit.reversed',
  'withdrawal.sent',
  'withdrawal.failed',
  'escrow.funded',
  'escrow.released',
  'referral.signup',
  'referral.job_completed',
  'identity.decided',
  'feed.posted',
  'webhook.test',
  'account.deleted',
] as const satisfies readonly EventType[]

/** What a change emits. */
export interface EmitInput<T extends EventType = EventType> {
  type: T
  /** who caused it (null: the platform itself, e.g. a confirmed deposit) */
  actorId: string | null
  /** the users it concerns: their notifications and private feed entries */
  audience: readonly string[]
  collectionId?: string | null
  /** shown in everyone's feed */
  isPublic?: boolean
  data: EventData[T]
  /**
   * Set when the same change may be reported twice (a job that runs again after a crash): a
   * second event with the same key is not written and reaches no subscriber.
   */
  key?: string
}

/** A stored event, as subscribers receive it. */
export type DomainEvent<T extends EventType = EventType> = {
  [K in T]: {
    id: string
    type: K
    actorId: string | null
    audience: string[]
    collectionId: string | null
    isPublic: boolean
    data: EventData[K]
    createdAt: Date
  }
}[T]
