// What the work feature records on a job (a collection), always inside the work feature's own
// transaction: the assigned talent, the status, the delivery, progress, the ids of its invites,
// applications and reviews, and the split of a disputed escrow. Also the compact views of
// collections and people that invites, applications and reviews embed.
import type { RawBuilder, SqlBool } from 'kysely'
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { Clock } from '../../platform/clock.ts'
import { canSee, type EscrowReleased, userSummary } from './forms.ts'
import type { UpdateCollectionInput } from './input-schemas.ts'
import {
  addInviteSql,
  type CollectionRefJson,
  collectionRefJson,
  type JobPatch,
  jobRepo,
  ownJobSql,
  type PersonJson,
  personJson,
} from './job-repo.ts'
import { paymentFeeText } from './payment-fee.ts'
import { type CollectionRow, collectionRepo } from './repo.ts'

export type JobRow = CollectionRow

const sameSet = (a: readonly string[], b: readonly string[]) =>
  new Set(a).size === new Set(b).size && a.every((x) => b.includes(x))

function samePrice(value: string | number, stored: string): boolean {
  try {
    return Number(paymentFeeText(value)) === Number(stored)
  } catch {
    return false
  }
}

/**
 * The first detail of #29 in `input` that differs from the collection (its JSON pointer), or
 * undefined when every detail sent is what the collection already has. Clients that send a status
 * change along with the current details (the SDK's update type requires name and description)
 * change nothing else.
 */
export function changedDetail(row: JobRow, input: UpdateCollectionInput): string | undefined {
  const same: {
    [K in keyof UpdateCollectionInput]-?: (v: NonNullable<UpdateCollectionInput[K]>) => boolean
  } = {
    type: (v) => v.trim() === row.type,
    name: (v) => v.trim() === row.name,
    category: (v) => v.trim() === row.category,
    description: (v) => v.trim() === row.description,
    paymentFee: (v) => samePrice(v, row.paymentFee),
    isPrivate: (v) => v === row.isPrivate,
    deliveryDate: (v) => row.deliveryDate?.toISOString().slice(0, 10) === v,
    tags: (v) => v.length === row.tagsData.length && v.every((t, i) => t === row.tagsData[i]),
    attachments: (v) => sameSet(v, row.attachmentIds),
  }
  for (const key of Object.keys(same) as (keyof UpdateCollectionInput)[]) {
    const value = input[key]
    if (value !== undefined && !(same[key] as (v: unknown) => boolean)(value)) return `/${key}`
  }
  return undefined
}

type RefColumns =
  | 'id'
  | 'name'
  | 'description'
  | 'type'
  | 'category'
  | 'status'
  | 'paymentFee'
  | 'isPrivate'
  | 'deliveryDate'
  | 'creatorId'
  | 'receiverId'
  | 'parentId'
  | 'escrowPaid'
  | 'isDeleted'

/** The collection as an invite, application or review shows it (`data`). */
export function collectionRef(row: Pick<JobRow, RefColumns>) {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    type: row.type,
    category: row.category,
    status: row.status,
    paymentFee: Number(row.paymentFee),
    isPrivate: row.isPrivate,
    deliveryDate: row.deliveryDate,
    creator: row.creatorId,
    owners: row.receiverId ? [row.receiverId] : [],
    parent: row.parentId,
    escrowPaid: row.escrowPaid,
    isDeleted: row.isDeleted,
  }
}
export type CollectionRef = ReturnType<typeof collectionRef>
export type PersonSummary = ReturnType<typeof userSummary> & { live: boolean }

export class CollectionJobs {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  #now() {
    return this.deps.clock.now()
  }

  /** The job's row, locked when `forUpdate`; undefined when it is missing or deleted. */
  async get(ex: Executor, id: string, forUpdate = false): Promise<JobRow | undefined> {
    const row = await collectionRepo.getForChange(ex, id, forUpdate)
    return row && !row.isDeleted ? row : undefined
  }

  /** A person's newest live jobs as creator or talent (operators' user page). */
  ofPerson(ex: Executor, userId: string, limit: number) {
    return jobRepo.ofPerson(ex, userId, limit)
  }

  /** Whether `userId` may see the job (public, theirs, or theirs to answer an invite to). */
  canSee(row: JobRow, userId: string): boolean {
    return canSee(row, userId)
  }

  /** The live children of a job without an escrow of their own: its deliverables. */
  deliverables(ex: Executor, parentId: string, forUpdate = false): Promise<JobRow[]> {
    return jobRepo.deliverables(ex, parentId, forUpdate)
  }

  /** Assigns the talent (`owners`, the escrow's receiver): inviteAccepted, no more pending invitees. */
  async assignTalent(tx: Tx, id: string, talentId: string, set: { status: string; paymentFee?: string }) {
    await jobRepo.patch(
      tx,
      id,
      { receiverId: talentId, inviteAccepted: true, inviteeIds: [], ...set },
      this.#now(),
    )
  }

  /** Moves the job to a status (with the fields that go with it). */
  async setStatus(
    tx: Tx,
    id: string,
    status: string,
    extra: Pick<JobPatch, 'cancellationReason' | 'issue' | 'progress'> = {},
  ) {
    const now = this.#now()
    await jobRepo.patch(
      tx,
      id,
      {
        status,
        ...extra,
        ...(status === 'completed' ? { completedAt: now } : {}),
        ...(status === 'cancelled' ? { cancelledAt: now, inviteeIds: [] } : {}),
      },
      now,
    )
  }

  /**
   * The talent's delivery: marks the job delivered (`recipientCompletedJob`) with its note and
   * files; answers the delivery's time as recorded.
   */
  async setDelivery(tx: Tx, id: string, delivery: { note: string; attachmentIds: string[] }): Promise<Date> {
    const now = this.#now()
    await jobRepo.patch(
      tx,
      id,
      {
        recipientCompletedJob: true,
        deliveryNote: delivery.note,
        deliveryAttachmentIds: delivery.attachmentIds,
        deliveredAt: now,
      },
      now,
    )
    return now
  }

  /** Takes the delivery back (the creator asked for changes); its note and files stay on record. */
  async reopenDelivery(tx: Tx, id: string) {
    await jobRepo.patch(tx, id, { recipientCompletedJob: false, deliveredAt: null }, this.#now())
  }

  /** A deliverable's own status and progress, or a job's progress (0–100). */
  async setProgress(tx: Tx, id: string, set: { progress?: number; status?: string }) {
    await jobRepo.patch(tx, id, set, this.#now())
  }

  /** A job's progress as the average of its deliverables' (rounded down); unchanged without any. */
  async recomputeProgress(tx: Tx, parentId: string): Promise<number | undefined> {
    const items = await jobRepo.deliverables(tx, parentId)
    if (items.length === 0) return undefined
    const progress = Math.floor(items.reduce((s, c) => s + c.progress, 0) / items.length)
    await jobRepo.patch(tx, parentId, { progress }, this.#now())
    return progress
  }

  /**
   * Records an invite (its id in `invites`) and lets the invitee see the job while it is pending:
   * an UPDATE to run inside the statement that writes the invite, only when `when` (a condition
   * of that statement) holds.
   */
  addInviteSql(id: string, inviteId: string, inviteeId: string, when: RawBuilder<SqlBool>) {
    return addInviteSql(id, inviteId, inviteeId, this.#now(), when)
  }

  /** The invite of `userId` is no longer pending: a private job is hidden from them again. */
  async dropInvitee(tx: Tx, id: string, userId: string) {
    await jobRepo.removeInvitee(tx, id, userId, this.#now())
  }

  async addApplication(tx: Tx, id: string, applicationId: string) {
    await jobRepo.append(tx, id, 'application_ids', applicationId, this.#now())
  }

  /** Records a review of the job (its id in `ratings`) and the job's new score. */
  async addRating(tx: Tx, id: string, reviewId: string, score: number) {
    const now = this.#now()
    await jobRepo.append(tx, id, 'rating_ids', reviewId, now)
    await jobRepo.patch(tx, id, { score }, now)
  }

  /** How the escrow of a disputed job is split (`escrowReleased`). */
  async setEscrowReleased(tx: Tx, id: string, split: EscrowReleased) {
    await jobRepo.patch(tx, id, { escrowReleased: split }, this.#now())
  }

  /** Collections by id as records embed them (deleted ones too, marked `isDeleted`). */
  async refs(ex: Executor, ids: readonly string[]): Promise<Map<string, CollectionRef>> {
    const rows = await jobRepo.byIds(ex, [...new Set(ids)])
    return new Map(rows.map((r) => [r.id, collectionRef(r)]))
  }

  /**
   * SQL for a list that embeds the people and collections its records name in its own query:
   * the person (as people() reads them) or the collection (as refs() reads it) whose id is an
   * expression of the reading query, as JSON; read back by personOf and refOf.
   */
  readonly personSql = personJson
  readonly refSql = collectionRefJson
  /** whether the live job is the user's own, as a condition of another statement */
  readonly ownJobSql = ownJobSql

  /** A person read by personSql (undefined when there is no such account). */
  personOf(json: PersonJson | null): PersonSummary | undefined {
    return json ? { ...userSummary(json), live: json.live } : undefined
  }

  /** A collection read by refSql (undefined when there is none). */
  refOf(json: CollectionRefJson | null): CollectionRef | undefined {
    return json
      ? collectionRef({
          ...json,
          deliveryDate: json.deliveryDate === null ? null : new Date(json.deliveryDate),
        })
      : undefined
  }

  /** People by id as records embed them, with whether the account is live. */
  async people(ex: Executor, ids: readonly string[]): Promise<Map<string, PersonSummary>> {
    const rows = await jobRepo.people(ex, [...new Set(ids)])
    return new Map(rows.map((r) => [r.id, { ...userSummary(r), live: r.deletedAt === null }]))
  }
}
