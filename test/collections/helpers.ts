// Shared pieces of the collections tests: creating collections through the API, error checks.
import { expect } from 'vitest'
import type { Tx } from '../../src/db/index.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import type { TestApp } from '../helpers/app.ts'

export { expectError } from '../helpers/errors.ts'

/** `YYYY-MM-DD`, `days` after today (UTC). */
export function dateIn(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

export async function createCollection(t: TestApp, token: string, body: Record<string, unknown> = {}) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/collection',
    token,
    payload: { type: 'job', name: 'A job', description: 'Some work', ...body },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as any
}

export interface Member {
  id: string
  token: string
  firstName: string
}

let seq = 0

/**
 * A verified account with a live session, inserted as rows (the sign-up flow has its own tests),
 * so these tests exercise only collections and bookmarks.
 */
export async function createMember(
  t: TestApp,
  opts: { firstName?: string; isPrivate?: boolean; profile?: Record<string, unknown> } = {},
): Promise<Member> {
  const id = newId()
  const n = `${Date.now().toString(36)}${(seq++).toString(36)}${id.slice(-4)}`
  const firstName = opts.firstName ?? 'Member'
  const now = new Date()
  await t.database.db
    .insertInto('users')
    .values({
      id,
      email: `m${n}@example.com`,
      firstName,
      lastName: 'Tester',
      passwordHash: null,
      status: true,
      emailVerified: true,
      emailVerifiedAt: now,
      isPrivate: opts.isPrivate ?? false,
      profile: JSON.stringify(opts.profile ?? {}),
      meta: JSON.stringify({ pointScore: 0 }),
      socials: JSON.stringify({}),
      userName: `member${n}`,
      referralCode: `R${n}`.slice(0, 20).toUpperCase(),
      createdAt: now,
      updatedAt: now,
    })
    .execute()
  const token = await t.app.services.auth.issueSession(id, { ip: null, userAgent: null })
  return { id, token: token.token, firstName }
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
export const isoTimestamp = expect.stringMatching(ISO)
export const anyId = expect.stringMatching(/^[0-9a-f]{24}$/)

/** The user summary of a member created by createMember. */
export function summaryOf(m: Member) {
  return {
    _id: m.id,
    firstName: m.firstName,
    lastName: 'Tester',
    role: 'user',
    type: 'recipient',
    profile: { talent: { tags: [] }, verified: false },
    isPrivate: false,
    score: 0,
    profileCompleteness: 0,
    socket: { status: 'OFFLINE' },
  }
}

/** Every field of the full Collection form with its value on creation; `over` replaces some. */
export function fullForm(creator: Member | string, over: Record<string, unknown> = {}) {
  return {
    _id: anyId,
    creator: typeof creator === 'string' ? creator : summaryOf(creator),
    name: 'A job',
    category: '',
    description: 'Some work',
    type: 'job',
    equity: '',
    collections: [],
    owners: [],
    invites: [],
    applications: [],
    attachments: [],
    attachmentData: [],
    ratings: [],
    payoutTransactions: [],
    tagsData: [],
    tags: [],
    status: 'pending',
    inviteAccepted: false,
    payoutStatus: 'awaiting',
    feePayoutStatus: 'awaiting',
    platformFeePayoutStatus: 'awaiting',
    paymentFee: 0,
    isPrivate: false,
    deliveryDate: null,
    recipientCompletedJob: false,
    delivery: null,
    inspectionPeriodDays: 14,
    completedDate: null,
    cancellationReason: '',
    issue: '',
    score: 0,
    progress: 0,
    isDeleted: false,
    isFundingRequest: false,
    failedPayoutCount: 0,
    failedFeePayoutCount: 0,
    failedPlatformFeePayoutCount: 0,
    isParentFunded: false,
    totalChildCollectionsCount: 0,
    totalChildCollectionEscrowCount: 0,
    parent: null,
    escrowPaid: false,
    meta: {},
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    __v: 0,
    ...over,
  }
}

/** Runs `fn` in a transaction of the app's database (for the escrow-facing service API). */
export function inTx<T>(t: TestApp, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return t.database.db.transaction().execute(fn)
}

/**
 * A minimal escrow row for `collectionId` (the collections module is tested without the escrow
 * module; the row exists so the collection's escrow link points at a real escrow).
 */
export async function insertEscrowRow(tx: Tx, id: string, collectionId: string, payerId: string) {
  await tx
    .insertInto('escrows')
    .values({
      id,
      collectionId,
      payerId,
      receiverId: null,
      coin: 'usdc',
      decimals: 6,
      address: `0x${newId().padEnd(40, '0')}`,
      escrowCents: '100',
      rate: '1',
      feePercent: '5',
      coinEscrowAmount: '1000000',
      expectedFee: '50000',
      amountToPay: '1050000',
      usdFeeCents: '5',
      usdAmountCents: '105',
      expiresAt: new Date(Date.now() + 3_600_000),
    } as any)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute()
}

/** Requests on one collection and checks of its side effects, on the app `app()` answers. */
export function collectionFlows(app: () => TestApp) {
  const auth = (token: string | undefined) => (token ? { token } : {})
  const post = (token: string | undefined, payload: unknown) =>
    app().req({ method: 'POST', url: '/v1/collection', payload: payload as object, ...auth(token) })
  const get = (token: string | undefined, id: string) =>
    app().req({ method: 'GET', url: `/v1/collection/${id}`, ...auth(token) })
  const patch = (token: string | undefined, id: string, payload: unknown) =>
    app().req({ method: 'PATCH', url: `/v1/collection/${id}`, payload: payload as object, ...auth(token) })
  const del = (token: string | undefined, id: string) =>
    app().req({ method: 'DELETE', url: `/v1/collection/${id}`, ...auth(token) })

  /** How many live entries the tag of `key` counts (-1 when the tag does not exist). */
  async function entryCount(key: string): Promise<number> {
    const row = await app()
      .database.db.selectFrom('tags')
      .select('entryCount')
      .where('key', '=', key)
      .executeTakeFirst()
    return row?.entryCount ?? -1
  }

  /** Links an escrow to a collection and moves it to `state` through the escrow-facing API. */
  async function escrow(
    id: string,
    state: 'waiting' | 'paid' | 'released' | 'cancelled',
    receiverId?: string,
  ) {
    const t = app()
    const escrowId = `e${id.slice(1)}`
    await inTx(t, async (tx) => {
      const { creatorId } = await tx
        .selectFrom('collections')
        .select('creatorId')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      await insertEscrowRow(tx, escrowId, id, creatorId)
      await t.app.services.collections.markEscrow(tx, id, {
        state,
        escrowId,
        ...(receiverId ? { receiverId } : {}),
      })
    })
  }

  return { post, get, patch, del, entryCount, escrow }
}
