// Collections: creation (optionally under a parent), the filtered list, one collection with its
// children, update and soft delete; and the methods the escrow feature calls to keep a
// collection's escrow and payout state (all inside the caller's transaction).
import type { Write } from '../../db/compose.ts'
import type { Executor, Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { tagService } from '../account/module.ts'
import { type EscrowEvent, EscrowLink, type PayoutKind } from './escrow-link.ts'
import { canSee, searchDocument, slugify, updateShape } from './forms.ts'
import type { CreateCollectionInput, UpdateCollectionInput } from './input-schemas.ts'
import { CollectionJobs } from './jobs.ts'
import { paymentFeeText } from './payment-fee.ts'
import { applyPaymentHook, hookField } from './payment-hooks.ts'
import { type CollectionDeps, CollectionReads } from './reads.ts'
import { referenceRepo } from './reference-repo.ts'
import { collectionRepo } from './repo.ts'

export const META_MAX_BYTES = 4096

export type { EscrowEvent, EscrowState, PayoutKind } from './escrow-link.ts'
export type { CollectionDeps, Related } from './reads.ts'

export interface EscrowCollectionInput {
  type?: string
  name: string
  description: string
  /** USD decimal string with at most two decimals */
  paymentFee: string
  /** `YYYY-MM-DD` */
  deliveryDate?: string
  isPrivate?: boolean
  isFundingRequest: boolean
  receiverId: string | null
  escrowId: string
}

function parseMeta(meta: object | undefined): Record<string, unknown> {
  if (!meta) return {}
  const json = JSON.stringify(meta)
  if (Buffer.byteLength(json) > META_MAX_BYTES)
    throw errors.field('/meta', `meta must be at most ${META_MAX_BYTES} bytes as JSON`)
  // jsonb cannot hold the NUL character
  if (json.includes('\\u0000')) throw errors.field('/meta', 'meta must not contain NUL characters')
  return meta as Record<string, unknown>
}

function trimmed(value: string, path: string, required: boolean): string {
  const v = value.trim()
  if (required && !v) throw errors.field(path, 'must not be blank')
  return v
}

export class CollectionService extends CollectionReads {
  readonly #escrow: EscrowLink
  /** what the work feature (invites, delivery, completion, disputes, reviews) records on a job */
  readonly jobs: CollectionJobs

  constructor(deps: CollectionDeps) {
    super(deps)
    this.#escrow = new EscrowLink(deps)
    this.jobs = new CollectionJobs(deps)
  }

  private async checkAttachments(tx: Tx, userId: string, ids: readonly string[] | undefined) {
    if (!ids?.length) return []
    const unique = [...new Set(ids)]
    if (!this.deps.files) throw errors.field('/attachments', 'File storage is not available')
    await this.deps.files.assertOwned(tx, userId, unique, { path: '/attachments' })
    return unique
  }

  private deliveryDate(date: string | undefined, path = '/deliveryDate'): Date | null {
    if (date === undefined) return null
    const today = this.deps.clock.now().toISOString().slice(0, 10)
    if (date < today) throw errors.field(path, `${path.slice(1)} must be today or later (UTC)`)
    return new Date(`${date}T00:00:00.000Z`)
  }

  /** Creates a collection for `creatorId` (#26). */
  async create(creatorId: string, input: CreateCollectionInput) {
    const { paymentWebHook, ...fields } = input
    const [id, secret] = await inTransaction(this.deps.db, async (tx) => {
      const id = await this.createIn(tx, creatorId, fields)
      const hook = await applyPaymentHook(
        this.deps.hooks,
        tx,
        { id, creatorId, created: true },
        paymentWebHook,
      )
      return [id, hook] as const
    })
    return { ...(await this.get(id, creatorId)), ...secret }
  }

  /** Creates a collection inside the caller's transaction and returns its id. */
  async createIn(
    tx: Tx,
    creatorId: string,
    input: CreateCollectionInput,
    escrow: {
      receiverId: string | null
      escrowId: string | null
      isFundingRequest: boolean
      /** where a bad delivery date is reported (the escrow request calls it dueDate) */
      datePath?: string
    } = {
      receiverId: null,
      escrowId: null,
      isFundingRequest: false,
    },
  ): Promise<string> {
    const now = this.deps.clock.now()
    const name = trimmed(input.name, '/name', true)
    const description = trimmed(input.description, '/description', true)
    const type = await this.deps.types.resolve(tx, input.type)
    const category = trimmed(input.category ?? '', '/category', false)
    const deliveryDate = this.deliveryDate(input.deliveryDate, escrow.datePath)
    const meta = parseMeta(input.meta)
    const tagNames = input.tags ?? []

    if (input.parent) {
      const parent = await collectionRepo.getForChange(tx, input.parent, true)
      if (!parent || !canSee(parent, creatorId)) throw errors.notFound('parent collection')
      if (parent.creatorId !== creatorId)
        throw errors.forbidden('Child collections can only be added under your own collections')
      if (parent.parentId)
        throw errors.named(
          'COLLECTION_NESTING_TOO_DEEP',
          'A child collection cannot have children of its own',
          {
            errors: [{ path: '/parent', message: 'the parent is itself a child collection' }],
          },
        )
    }

    const attachmentIds = await this.checkAttachments(tx, creatorId, input.attachments)
    const tags = await tagService.ensure(tx, tagNames)
    const id = newId(now.getTime())
    await collectionRepo.insert(tx, {
      id,
      creatorId,
      attachmentIds,
      receiverId: escrow.receiverId,
      escrowId: escrow.escrowId,
      escrowStatus: escrow.escrowId ? 'waiting' : null,
      isFundingRequest: escrow.isFundingRequest,
      parentId: input.parent ?? null,
      isParentFunded: input.isParentFunded ?? false,
      type,
      name,
      category,
      description,
      slug: slugify(name, id),
      paymentFee: input.paymentFee === undefined ? '0' : paymentFeeText(input.paymentFee),
      isPrivate: input.isPrivate ?? false,
      deliveryDate,
      inspectionDays: 'inspectionPeriodDays' in input ? (input.inspectionPeriodDays ?? null) : null,
      tagsData: tagNames,
      tagIds: tags.map((t) => t.id),
      tagKeys: tags.map((t) => t.key),
      meta,
      searchText: searchDocument([name, description, ...tags.map((t) => t.name)]),
      now,
    })
    let eventWrites: Write[] = []
    if (input.parent) await collectionRepo.bumpChildCounts(tx, input.parent, 1, 0, now)
    else {
      const emitted = await this.deps.events.emitForStatement(tx, {
        type: 'collection.created',
        actorId: creatorId,
        audience: [creatorId],
        collectionId: id,
        isPublic: !(input.isPrivate ?? false),
        data: { collectionId: id, title: name, type },
      })
      eventWrites = emitted?.writes ?? []
    }
    // The tags' counts last, with the event's row: other saves of the same tags wait on their rows
    // only from here to the commit.
    await tagService.swap(
      tx,
      [],
      tags.map((t) => t.id),
      eventWrites,
    )
    return id
  }

  /** Loads a collection the caller means to change: 404 when hidden, 403 when not theirs. */
  private async ownedForChange(tx: Tx, id: string, userId: string) {
    const row = await collectionRepo.getForChange(tx, id, true)
    if (!row || !canSee(row, userId)) throw errors.notFound('collection')
    if (row.creatorId !== userId) throw errors.forbidden('Only the creator may change this collection')
    return row
  }

  /**
   * Updates the fields of #29 and answers the older update shape. `paymentWebHook` (null or '':
   * removed) may change even once the escrow is paid: it moves no money.
   */
  update(id: string, userId: string, input: UpdateCollectionInput, paymentWebHook?: string | null) {
    return inTransaction(this.deps.db, (tx) => this.updateIn(tx, id, userId, input, paymentWebHook))
  }

  /** #29 inside the caller's transaction (the bulk update runs several in one). */
  async updateIn(
    tx: Tx,
    id: string,
    userId: string,
    input: UpdateCollectionInput,
    paymentWebHook?: string | null,
  ) {
    const row = await this.ownedForChange(tx, id, userId)
    if (row.escrowPaid && Object.values(input).some((v) => v !== undefined))
      throw errors.named(
        'COLLECTION_LOCKED',
        'The escrow of this collection is paid; it can no longer be changed',
      )
    const secret = await applyPaymentHook(this.deps.hooks, tx, row, paymentWebHook)
    const now = this.deps.clock.now()
    const patch: Parameters<typeof collectionRepo.update>[2] = {}
    if (input.type !== undefined && input.type.trim() !== row.type)
      patch.type = await this.deps.types.resolve(tx, input.type)
    if (input.name !== undefined) {
      patch.name = trimmed(input.name, '/name', true)
      patch.slug = slugify(patch.name, id)
    }
    if (input.category !== undefined) patch.category = trimmed(input.category, '/category', false)
    if (input.description !== undefined) patch.description = trimmed(input.description, '/description', true)
    if (input.paymentFee !== undefined) patch.paymentFee = paymentFeeText(input.paymentFee)
    if (input.isPrivate !== undefined) patch.isPrivate = input.isPrivate
    if (input.deliveryDate !== undefined) patch.deliveryDate = this.deliveryDate(input.deliveryDate)
    if (input.attachments !== undefined)
      patch.attachmentIds = await this.checkAttachments(tx, userId, input.attachments)
    let tagNames: string[] | undefined
    if (input.tags !== undefined) {
      const tags = await tagService.ensure(tx, input.tags)
      patch.tagsData = input.tags
      patch.tagIds = tags.map((t) => t.id)
      patch.tagKeys = tags.map((t) => t.key)
      tagNames = tags.map((t) => t.name)
    }
    if (patch.name !== undefined || patch.description !== undefined || input.tags !== undefined)
      patch.searchText = searchDocument([
        patch.name ?? row.name,
        patch.description ?? row.description,
        ...(tagNames ?? (await tagService.labels(tx, row.tagIds)).map((t) => t.name)),
      ])
    const updated = await collectionRepo.update(tx, id, patch, now)
    // The tags' counts after the row (which is locked since the start), before the answer reads them.
    if (patch.tagIds) await tagService.swap(tx, row.tagIds, patch.tagIds)
    const rel = await this.related(tx, userId, [updated])
    return {
      ...updateShape(updated, rel.tags, rel.childIds.get(id) ?? []),
      ...hookField(rel.hooks, id),
      ...secret,
    }
  }

  /** The older update shape of a collection as it is now (after a status change). */
  async updateShapeOf(ex: Executor, id: string, viewerId: string) {
    const row = await collectionRepo.getForChange(ex, id)
    if (!row || !canSee(row, viewerId)) throw errors.notFound('collection')
    const rel = await this.related(ex, viewerId, [row])
    return { ...updateShape(row, rel.tags, rel.childIds.get(id) ?? []), ...hookField(rel.hooks, id) }
  }

  /** Soft-deletes a collection and its children (#28); tag counts and bookmarks go with them. */
  async remove(id: string, userId: string) {
    await inTransaction(this.deps.db, async (tx) => {
      const row = await this.ownedForChange(tx, id, userId)
      const children = await collectionRepo.liveChildrenForChange(tx, id)
      const family = [row, ...children]
      // (a paid escrow returned to the payer when the job was cancelled counts as settled)
      if (family.some((c) => c.escrowPaid && c.escrowStatus !== 'released' && c.escrowStatus !== 'cancelled'))
        throw errors.named(
          'COLLECTION_ESCROW_UNRELEASED',
          'A paid escrow on this collection has not been released yet',
        )
      const now = this.deps.clock.now()
      await collectionRepo.softDelete(
        tx,
        family.map((c) => c.id),
        now,
      )
      await tagService.swapMany(
        tx,
        family.map((c) => ({ before: c.tagIds, after: [] })),
      )
      await collectionRepo.bumpChildCounts(
        tx,
        id,
        -children.length,
        -children.filter((c) => c.escrowPaid).length,
        now,
      )
      if (row.parentId)
        await collectionRepo.bumpChildCounts(tx, row.parentId, -1, row.escrowPaid ? -1 : 0, now)
      await referenceRepo.deleteBookmarksOf(
        tx,
        family.map((c) => c.id),
      )
    })
  }

  // ---- the escrow feature's API (always inside the escrow's own transaction) ----

  /**
   * Creates the collection an escrow pays for (escrow initiation) and returns its id. The caller
   * is the creator (the payer); `receiverId` may see it even when private.
   */
  createForEscrow(tx: Tx, creatorId: string, input: EscrowCollectionInput): Promise<string> {
    return this.createIn(
      tx,
      creatorId,
      {
        type: input.type ?? 'job',
        name: input.name,
        description: input.description,
        paymentFee: input.paymentFee,
        ...(input.deliveryDate !== undefined ? { deliveryDate: input.deliveryDate } : {}),
        ...(input.isPrivate !== undefined ? { isPrivate: input.isPrivate } : {}),
      },
      {
        receiverId: input.receiverId,
        escrowId: input.escrowId,
        isFundingRequest: input.isFundingRequest,
        datePath: '/dueDate',
      },
    )
  }

  /** Records the escrow's state on its collection (see escrow-link.ts). */
  markEscrow(tx: Tx, collectionId: string, event: EscrowEvent): Promise<void> {
    return this.#escrow.markEscrow(tx, collectionId, event)
  }

  /** Records a payout step of a released escrow (see escrow-link.ts). */
  recordPayout(tx: Tx, collectionId: string, which: PayoutKind, status: string, transactionId?: string) {
    return this.#escrow.recordPayout(tx, collectionId, which, status, transactionId)
  }

  /** Several payout steps at once, in one statement (see recordPayout). */
  recordPayouts(
    tx: Tx,
    collectionId: string,
    steps: { which: PayoutKind; status: string; transactionId?: string | undefined }[],
  ) {
    return this.#escrow.recordPayouts(tx, collectionId, steps)
  }

  /** The escrow-relevant state of a collection (undefined when missing or deleted). */
  escrowState(ex: Executor, collectionId: string) {
    return this.#escrow.escrowState(ex, collectionId)
  }

  /** Refuses (422) to move the escrow of a job in dispute, inside the escrow's locked transaction. */
  assertEscrowMovable(ex: Executor, collectionId: string) {
    return this.#escrow.assertEscrowMovable(ex, collectionId)
  }
}
