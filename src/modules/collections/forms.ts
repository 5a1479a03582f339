// Rows → the API's forms: the full Collection, the list item, the older update shape,
// the user summary and the bookmark.

import type { UserSummaryJson } from '../account/module.ts'
import type { TagRow } from '../account/types.ts'
import { autoCompleteAt, inspectionDays } from './inspection.ts'

/** A user summary's columns: what the account module's SQL reads (creator, receiver, bookmarked user). */
export type UserSummaryRow = UserSummaryJson

/** The user summary (creator, receiver, bookmarked user). */
export function userSummary(row: UserSummaryRow) {
  const profile = (row.profile ?? {}) as { talent?: { tags?: unknown; availability?: unknown } }
  const talent = profile.talent ?? {}
  return {
    _id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    type: row.type,
    profile: {
      talent: {
        tags: Array.isArray(talent.tags) ? (talent.tags as string[]) : [],
        ...(typeof talent.availability === 'string' ? { availability: talent.availability } : {}),
      },
      verified: row.verified,
    },
    isPrivate: row.isPrivate,
    score: row.score,
    profileCompleteness: row.profileCompleteness,
    socket: { status: row.socketStatus },
  }
}

export interface BaseRow {
  id: string
  creatorId: string
  attachmentIds: string[]
  receiverId: string | null
  escrowStatus: string | null
  escrowPaid: boolean
  isFundingRequest: boolean
  parentId: string | null
  isParentFunded: boolean
  type: string
  name: string
  category: string
  description: string
  equity: string
  slug: string
  paymentFee: string
  isPrivate: boolean
  deliveryDate: Date | null
  tagsData: string[]
  tagIds: string[]
  meta: unknown
  status: string
  payoutStatus: string
  feePayoutStatus: string
  platformFeePayoutStatus: string
  failedPayoutCount: number
  failedFeePayoutCount: number
  failedPlatformFeePayoutCount: number
  payoutTransactions: string[]
  inviteAccepted: boolean
  recipientCompletedJob: boolean
  score: number
  progress: number
  totalChildCollectionsCount: number
  totalChildCollectionEscrowCount: number
  inviteIds: string[]
  inviteeIds: string[]
  applicationIds: string[]
  ratingIds: string[]
  cancellationReason: string
  issue: string
  deliveryNote: string
  deliveryAttachmentIds: string[]
  deliveredAt: Date | null
  inspectionDays: number | null
  completedAt: Date | null
  escrowReleased: unknown
  isDeleted: boolean
  createdAt: Date
  updatedAt: Date
  version: number
}

/** How the escrow was split when a dispute ended (USD; `*Released` once that side's transfer is queued). */
export interface EscrowReleased {
  creatorReleased: boolean
  creatorAmount: number
  ownerReleased: boolean
  ownerAmount: number
}

/** Tags by id, with what a collection shows of each. */
export type TagLookup = Map<string, Pick<TagRow, 'id' | 'name' | 'key' | 'color' | 'type'>>
/** File summaries by id (deleted files are absent). */
export type FileLookup = Map<string, object>

function collectionTags(ids: string[], tags: TagLookup) {
  return ids
    .map((id) => tags.get(id))
    .filter((t) => t !== undefined)
    .map((t) => ({ _id: t.id, name: t.name, key: t.key, color: t.color, type: t.type }))
}

/** Whether `userId` may see the collection: public, or theirs to create, do or answer an invite to. */
export function canSee(
  row: Pick<BaseRow, 'isDeleted' | 'isPrivate' | 'creatorId' | 'receiverId' | 'inviteeIds'>,
  userId: string,
) {
  return (
    !row.isDeleted &&
    (!row.isPrivate ||
      row.creatorId === userId ||
      row.receiverId === userId ||
      row.inviteeIds.includes(userId))
  )
}

/** The assigned talent, as the one-element `owners` list (empty while nobody is assigned). */
const owners = (row: BaseRow) => (row.receiverId ? [row.receiverId] : [])

/** The talent's delivery (note and attachments), or null before the job is delivered. */
function delivery(row: BaseRow, files: FileLookup) {
  if (!row.deliveredAt) return null
  return {
    note: row.deliveryNote,
    attachments: row.deliveryAttachmentIds.filter((id) => files.has(id)),
    attachmentData: row.deliveryAttachmentIds.map((id) => files.get(id)).filter((f): f is object => !!f),
    deliveredAt: row.deliveredAt,
    autoCompleteAt: autoCompleteAt(row.deliveredAt, inspectionDays(row)),
  }
}

/** Every field of the full form except `creator` and `collections`. */
export function fullFields(row: BaseRow, tags: TagLookup, files: FileLookup = new Map()) {
  return {
    _id: row.id,
    name: row.name,
    category: row.category,
    description: row.description,
    type: row.type,
    equity: row.equity,
    owners: owners(row),
    invites: row.inviteIds,
    applications: row.applicationIds,
    attachments: row.attachmentIds.filter((id) => files.has(id)),
    attachmentData: row.attachmentIds.map((id) => files.get(id)).filter((f): f is object => !!f),
    ratings: row.ratingIds,
    payoutTransactions: row.payoutTransactions,
    tagsData: row.tagsData,
    tags: collectionTags(row.tagIds, tags),
    status: row.status,
    inviteAccepted: row.inviteAccepted,
    payoutStatus: row.payoutStatus,
    feePayoutStatus: row.feePayoutStatus,
    platformFeePayoutStatus: row.platformFeePayoutStatus,
    // NUMERIC(14,2) has at most 14 significant digits, so the double is exact to the cent.
    paymentFee: Number(row.paymentFee),
    isPrivate: row.isPrivate,
    deliveryDate: row.deliveryDate,
    recipientCompletedJob: row.recipientCompletedJob,
    delivery: delivery(row, files),
    inspectionPeriodDays: inspectionDays(row),
    completedDate: row.completedAt,
    cancellationReason: row.cancellationReason,
    issue: row.issue,
    ...(row.escrowReleased ? { escrowReleased: row.escrowReleased as EscrowReleased } : {}),
    score: row.score,
    progress: row.progress,
    isDeleted: row.isDeleted,
    isFundingRequest: row.isFundingRequest,
    failedPayoutCount: row.failedPayoutCount,
    failedFeePayoutCount: row.failedFeePayoutCount,
    failedPlatformFeePayoutCount: row.failedPlatformFeePayoutCount,
    isParentFunded: row.isParentFunded,
    totalChildCollectionsCount: row.totalChildCollectionsCount,
    totalChildCollectionEscrowCount: row.totalChildCollectionEscrowCount,
    parent: row.parentId,
    escrowPaid: row.escrowPaid,
    meta: (row.meta ?? {}) as Record<string, unknown>,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    __v: row.version,
  }
}

/** paymentStatus and balanceStatus of the older shape, derived from the escrow state. */
function olderStatuses(row: BaseRow) {
  switch (row.escrowStatus) {
    case 'paid':
      return { paymentStatus: 'paid', balanceStatus: 'held' }
    case 'released':
      return { paymentStatus: 'paid', balanceStatus: 'released' }
    default:
      return { paymentStatus: 'awaiting', balanceStatus: 'awaiting' }
  }
}

/** The older shape answered by the update. */
export function updateShape(row: BaseRow, tags: TagLookup, childIds: string[]) {
  return {
    _id: row.id,
    name: row.name,
    category: row.category,
    description: row.description,
    equity: row.equity,
    collections: childIds,
    type: row.type,
    owners: owners(row),
    invites: row.inviteIds,
    applications: row.applicationIds,
    skillData: collectionTags(row.tagIds, tags).map((t) => t.name),
    skills: collectionTags(row.tagIds, tags).map((t) => t._id),
    status: row.status,
    inviteAccepted: row.inviteAccepted,
    payoutStatus: row.payoutStatus,
    feePayoutStatus: row.feePayoutStatus,
    ...olderStatuses(row),
    paymentFee: row.paymentFee,
    isPrivate: row.isPrivate,
    deliveryDate: row.deliveryDate,
    recipientCompletedJob: row.recipientCompletedJob,
    score: row.score,
    progress: row.progress,
    isDeleted: row.isDeleted,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    slug: row.slug,
    __v: row.version,
  }
}

export function slugify(name: string, id: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '')
  return base ? `${base}-${id.slice(-6)}` : id
}

/** The text the full-text index covers: words only, so the query side can be built the same way. */
export function searchDocument(parts: string[]): string {
  return words(parts.join(' ')).join(' ')
}

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
}
