// Rows → the API forms: IInviteDto, applications, IReviewDto and disputes, each with the people
// and the collection it names (fetched by id for a whole page at once).
import type { Selectable } from 'kysely'
import type { Executor } from '../../db/index.ts'
import type { ApplicationsTable, DisputesTable, InvitesTable, ReviewsTable } from '../../db/tables/work.ts'
import type { CollectionJobs, CollectionRef, CollectionService, PersonSummary } from '../collections/types.ts'
import { centsToUsd } from './context.ts'
import type { ListEmbeds } from './repo.ts'

export type InviteRow = Selectable<InvitesTable>
export type ApplicationRow = Selectable<ApplicationsTable>
export type ReviewRow = Selectable<ReviewsTable>
export type DisputeRow = Selectable<DisputesTable>

/** A person who is gone (never expected: accounts are soft-deleted and keep their row). */
const nobody = (id: string): PersonSummary => ({
  _id: id,
  firstName: '',
  lastName: '',
  role: '',
  type: '',
  profile: { talent: { tags: [] }, verified: false },
  isPrivate: true,
  score: 0,
  profileCompleteness: 0,
  socket: { status: 'OFFLINE' },
  live: false,
})

export interface Lookups {
  people: Map<string, PersonSummary>
  refs: Map<string, CollectionRef>
}

/** The people and collections a page of records names, each in one query. */
export async function lookups(
  collections: CollectionService,
  ex: Executor,
  peopleIds: string[],
  collectionIds: string[],
): Promise<Lookups> {
  const [people, refs] = await Promise.all([
    collections.jobs.people(ex, peopleIds),
    collections.jobs.refs(ex, collectionIds),
  ])
  return { people, refs }
}

/** What a list reads of the people and collections its rows name, in its own statement. */
export function listEmbeds(collections: CollectionService): ListEmbeds {
  return { person: collections.jobs.personSql, ref: collections.jobs.refSql }
}

/**
 * The lookups of a page read with ListEmbeds: each person and collection as `[id, its JSON]`
 * (JSON null when there is none, as lookups leaves it out).
 */
export function embeddedLookups(
  jobs: CollectionJobs,
  people: [string, unknown][],
  refs: [string, unknown][],
): Lookups {
  const l: Lookups = { people: new Map(), refs: new Map() }
  for (const [id, json] of people) {
    const p = jobs.personOf(json as Parameters<CollectionJobs['personOf']>[0])
    if (p) l.people.set(id, p)
  }
  for (const [id, json] of refs) {
    const r = jobs.refOf(json as Parameters<CollectionJobs['refOf']>[0])
    if (r) l.refs.set(id, r)
  }
  return l
}

const person = (l: Lookups, id: string) => l.people.get(id) ?? nobody(id)

export function inviteForm(row: InviteRow, l: Lookups) {
  const sender = person(l, row.senderId)
  const data = l.refs.get(row.collectionId)!
  return {
    _id: row.id,
    sender,
    receiver: person(l, row.receiverId),
    data,
    message: row.message,
    description: `${`${sender.firstName} ${sender.lastName}`.trim() || 'Someone'} invited you to “${data.name}”`,
    status: row.status,
    emailToken: '',
    ...(row.acceptedAt ? { acceptedAt: row.acceptedAt } : {}),
    ...(row.status === 'cancelled' && row.closedAt ? { deletedAt: row.closedAt } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export function applicationForm(row: ApplicationRow, l: Lookups) {
  return {
    _id: row.id,
    applicant: person(l, row.applicantId),
    data: l.refs.get(row.collectionId)!,
    message: row.message,
    amount: centsToUsd(row.amountCents),
    status: row.status,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export function reviewForm(row: ReviewRow, l: Lookups) {
  return {
    _id: row.id,
    data: l.refs.get(row.collectionId)!,
    owner: person(l, row.ownerId),
    receiver: person(l, row.receiverId),
    type: row.type,
    review: row.review,
    rating: row.rating,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}

export function disputeForm(row: DisputeRow, files: Map<string, object>, escrowCents: bigint) {
  return {
    _id: row.id,
    collection: row.collectionId,
    escrowId: row.escrowId,
    raisedBy: row.raisedBy,
    reason: row.reason,
    evidence: row.evidenceIds.filter((id) => files.has(id)),
    evidenceData: row.evidenceIds.map((id) => files.get(id)).filter((f): f is object => !!f),
    status: row.status,
    escrowAmount: centsToUsd(escrowCents)!,
    proposal:
      row.proposedBy && row.proposedAt
        ? {
            proposedBy: row.proposedBy,
            creatorAmount: centsToUsd(row.proposedCreatorCents)!,
            ownerAmount: centsToUsd(row.proposedOwnerCents)!,
            proposedAt: row.proposedAt,
          }
        : null,
    resolution: row.resolution,
    creatorAmount: centsToUsd(row.creatorCents),
    ownerAmount: centsToUsd(row.ownerCents),
    decidedBy: row.decidedBy,
    note: row.note,
    resolvedAt: row.resolvedAt,
    paidAt: row.paidAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }
}
