// Collections: creation (optionally under a parent), the filtered list, one collection with its
// children, update and soft delete; and the methods the escrow feature calls to keep a
// collection's escrow and payout state (all inside the caller's transaction).
import type { Db, Executor, Tx } from '../../db/index.ts'
import { inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { tagService } from '../account/tags.ts'
import type { EventService } from '../events/service.ts'
import type { CollectionTypeService } from './collection-types.ts'
import { type EscrowEvent, EscrowLink, type PayoutKind } from './escrow-link.ts'
import { listFilters } from './filters.ts'
import {
  canSee,
  type FileLookup,
  fullFields,
  searchDocument,
  slugify,
  type TagLookup,
  updateShape,
  userSummary,
} from './forms.ts'
import { CollectionJobs } from './jobs.ts'
import { paymentFeeText } from './payment-fee.ts'
import { applyPaymentHook, type CollectionHooks, hookField, hooksOf } from './payment-hooks.ts'
import { referenceRepo } from './reference-repo.ts'
import { type CollectionRow, collectionRepo, type UserRow } from './repo.ts'
import type { CreateCollectionInput, ListCollectionsQueryT, UpdateCollectionInput } from './schemas.ts'

export const META_MAX_BYTES = 4096

export interface Related {
  users: Map<string, UserRow>
  tags: TagLookup
  childIds: Map<string, string[]>
  bookmarks: Map<string, string>
  files: FileLookup
  /** paymentWebHook URLs of the viewer's own collections */
  hooks: Map<string, string>
}

export type { EscrowEvent, EscrowState, PayoutKind } from './escrow-link.ts'

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

export class CollectionService {
  readonly #escrow: EscrowLink
  /** what the work feature (invites, delivery, completion, disputes, reviews) records on a job */
  readonly jobs: CollectionJobs

  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      /** domain events: a new top-level collection is one */
      events: EventService
      /** the accepted values of `type` */
      types: Pick<CollectionTypeService, 'resolve'>
      /** file storage: attachments are the creator's own uploads, shown as file summaries */
      files?: {
        summaries(ex: Executor, ids: readonly string[]): Promise<Map<string, object>>
        assertOwned(
          ex: Executor,
          userId: string,
          ids: readonly string[],
          opts?: { path?: string },
        ): Promise<unknown>
      }
      /** webhooks: a collection's paymentWebHook */
      hooks?: CollectionHooks
    },
  ) {
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

  /**
   * What the forms need beside the collection rows, each in one query by id: the creators (and
   * receivers), the tags, the ids of the visible children and the viewer's bookmarks.
   */
  async related(
    ex: Executor,
    viewerId: string,
    rows: CollectionRow[],
    want: { receivers?: boolean; bookmarks?: boolean; knownChildren?: Map<string, string[]> } = {},
  ): Promise<Related> {
    // Children already read need no second look.
    const ids = rows.map((r) => r.id)
    const unknownChildren = ids.filter((id) => !want.knownChildren?.has(id))
    const userIds = new Set(rows.map((r) => r.creatorId))
    if (want.receivers) for (const r of rows) if (r.receiverId) userIds.add(r.receiverId)
    const fileIds = [...new Set(rows.flatMap((r) => [...r.attachmentIds, ...r.deliveryAttachmentIds]))]
    const [users, tagRows, childIds, bookmarks, files, hooks] = await Promise.all([
      collectionRepo.users(ex, [...userIds]),
      tagService.byIds(ex, [...new Set(rows.flatMap((r) => r.tagIds))]),
      collectionRepo.childIds(ex, unknownChildren, viewerId).then((m) => {
        for (const [k, v] of want.knownChildren ?? []) m.set(k, v)
        return m
      }),
      want.bookmarks ? collectionRepo.bookmarksOf(ex, viewerId, ids) : new Map<string, string>(),
      fileIds.length && this.deps.files ? this.deps.files.summaries(ex, fileIds) : new Map<string, object>(),
      hooksOf(this.deps.hooks, ex, viewerId, rows),
    ])
    return {
      users: new Map(users.map((u) => [u.id, u])),
      tags: new Map(tagRows.map((t) => [t.id, t])),
      childIds,
      bookmarks,
      files,
      hooks,
    }
  }

  /** A collection with `collections` as the ids of its visible children. */
  withChildIds(row: CollectionRow, rel: Related) {
    return {
      ...fullFields(row, rel.tags, rel.files),
      ...hookField(rel.hooks, row.id),
      creator: userSummary(rel.users.get(row.creatorId)!),
      collections: rel.childIds.get(row.id) ?? [],
    }
  }

  /** Creates a collection for `creatorId` (#26). */
  async create(creatorId: string, input: CreateCollectionInput) {
    const { paymentWebHook, ...fields } = input
    const [id, secret] = await inTransaction(this.deps.db, async (tx) => {
      const id = await this.createIn(tx, creatorId, fields)
      return [id, await applyPaymentHook(this.deps.hooks, tx, { id, creatorId }, paymentWebHook)] as const
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
        throw errors.businessRule('A child collection cannot have children of its own', {
          errors: [{ path: '/parent', message: 'the parent is itself a child collection' }],
        })
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
      tagsData: tagNames,
      tagIds: tags.map((t) => t.id),
      tagKeys: tags.map((t) => t.key),
      meta,
      searchText: searchDocument([name, description, ...tags.map((t) => t.name)]),
      now,
    })
    await tagService.swap(
      tx,
      [],
      tags.map((t) => t.id),
    )
    if (input.parent) await collectionRepo.bumpChildCounts(tx, input.parent, 1, 0, now)
    else
      await this.deps.events.emit(tx, {
        type: 'collection.created',
        actorId: creatorId,
        audience: [creatorId],
        collectionId: id,
        isPublic: !(input.isPrivate ?? false),
        data: { collectionId: id, title: name, type },
      })
    return id
  }

  /** One collection with its visible children (#30); someone else's private one is not found. */
  async get(id: string, viewerId: string, ex: Executor = this.deps.db) {
    const [row, ...children] = await collectionRepo.getVisibleWithChildren(ex, id, viewerId)
    if (row?.id !== id) throw errors.notFound('collection')
    const rel = await this.related(ex, viewerId, [row, ...children], {
      knownChildren: new Map([[id, children.map((c) => c.id)]]),
    })
    return {
      ...fullFields(row, rel.tags, rel.files),
      ...hookField(rel.hooks, row.id),
      creator: userSummary(rel.users.get(row.creatorId)!),
      collections: children.map((c) => this.withChildIds(c, rel)),
    }
  }

  /** The filtered, paginated list (#27). */
  async list(viewerId: string, q: ListCollectionsQueryT) {
    const page = q.page ?? 1
    const limit = q.limit ?? 12
    const filters = listFilters(q)
    const db = this.deps.db
    const withCreator = q.creator ?? true
    const withReceiver = q.receiver ?? false
    const offset = (page - 1) * limit
    const rows = await collectionRepo.listPage(db, viewerId, filters, { limit, offset })
    // A short page that is not past the end holds the tail of the matches: no count needed.
    const counted =
      rows.length < limit && (rows.length > 0 || page === 1)
        ? offset + rows.length
        : await collectionRepo.count(db, viewerId, filters)
    const rel = await this.related(db, viewerId, rows, { receivers: withReceiver, bookmarks: true })
    return {
      data: rows.map((r) => {
        const bookmarkId = rel.bookmarks.get(r.id)
        const receiver = r.receiverId ? rel.users.get(r.receiverId) : undefined
        return {
          ...fullFields(r, rel.tags, rel.files),
          ...hookField(rel.hooks, r.id),
          creator: withCreator ? userSummary(rel.users.get(r.creatorId)!) : r.creatorId,
          ...(withReceiver ? { receiver: receiver ? userSummary(receiver) : null } : {}),
          collections: rel.childIds.get(r.id) ?? [],
          isBookmarked: bookmarkId !== undefined,
          bookmarkId: bookmarkId ?? '',
        }
      }),
      total: counted,
      pages: Math.ceil(counted / limit),
      page,
      limit,
    }
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
      throw errors.conflict('The escrow of this collection is paid; it can no longer be changed')
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
    let tagNames = (await tagService.byIds(tx, row.tagIds)).map((t) => t.name)
    if (input.tags !== undefined) {
      const tags = await tagService.ensure(tx, input.tags)
      await tagService.swap(
        tx,
        row.tagIds,
        tags.map((t) => t.id),
      )
      patch.tagsData = input.tags
      patch.tagIds = tags.map((t) => t.id)
      patch.tagKeys = tags.map((t) => t.key)
      tagNames = tags.map((t) => t.name)
    }
    if (patch.name !== undefined || patch.description !== undefined || input.tags !== undefined)
      patch.searchText = searchDocument([
        patch.name ?? row.name,
        patch.description ?? row.description,
        ...tagNames,
      ])
    await collectionRepo.update(tx, id, patch, now)
    const updated = (await collectionRepo.getForChange(tx, id))!
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
        throw errors.conflict('A paid escrow on this collection has not been released yet')
      const now = this.deps.clock.now()
      await collectionRepo.softDelete(
        tx,
        family.map((c) => c.id),
        now,
      )
      for (const c of family) await tagService.swap(tx, c.tagIds, [])
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

  /** The escrow-relevant state of a collection (undefined when missing or deleted). */
  escrowState(ex: Executor, collectionId: string) {
    return this.#escrow.escrowState(ex, collectionId)
  }

  /** Refuses (422) to move the escrow of a job in dispute, inside the escrow's locked transaction. */
  assertEscrowMovable(ex: Executor, collectionId: string) {
    return this.#escrow.assertEscrowMovable(ex, collectionId)
  }
}
