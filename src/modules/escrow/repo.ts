// The only SQL over the escrow module's tables.
import { type Insertable, sql } from 'kysely'
import { type Write, withWrites } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import type { EscrowStatus, EscrowsTable, LegKind, LegStatus } from '../../db/tables/escrow.ts'

export const escrowColumns = [
  'id',
  'collectionId',
  'payerId',
  'receiverId',
  'parentEscrowId',
  'coin',
  'decimals',
  'address',
  'status',
  'escrowCents',
  'rate',
  'feePercent',
  'coinEscrowAmount',
  'expectedFee',
  'amountToPay',
  'usdFeeCents',
  'usdAmountCents',
  'received',
  'fundedToChildren',
  'releasedCents',
  'releasedPayout',
  'releasedFee',
  'payTransferId',
  'expiresAt',
  'paidAt',
  'releasedAt',
  'cancelledAt',
  'createdAt',
  'version',
] as const

export const legColumns = [
  'id',
  'escrowId',
  'kind',
  'seq',
  'toAddress',
  'amount',
  'status',
  'attempt',
  'failures',
  'outgoingId',
  'txHash',
  'transactionId',
  'lastError',
] as const

export const escrowRepo = {
  get(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('escrows').select(escrowColumns).where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  /**
   * The escrow row with what the money requests check before their transaction, in the same
   * statement: whether it is a public payment order (a direct deposit), has a child awaiting its
   * funding, or has a child's funding leg not confirmed yet (its transfer may have settled: the
   * payouts then look closer).
   */
  getChecked(ex: Executor, id: string) {
    return ex
      .selectFrom('escrows as e')
      .select(escrowColumns.map((c) => `e.${c}` as const))
      .select((eb) => [
        eb
          .exists(eb.selectFrom('directDeposits as d').select('d.id').whereRef('d.escrowId', '=', 'e.id'))
          .$castTo<boolean>()
          .as('paymentOrder'),
        eb
          .exists(
            eb
              .selectFrom('escrows as c')
              .select('c.id')
              .whereRef('c.parentEscrowId', '=', 'e.id')
              .where('c.status', '=', 'waiting'),
          )
          .$castTo<boolean>()
          .as('waitingChild'),
        eb
          .exists(
            eb
              .selectFrom('escrowLegs as l')
              .select('l.id')
              .whereRef('l.escrowId', '=', 'e.id')
              .where('l.kind', '=', 'fund')
              .where('l.status', '<>', 'completed'),
          )
          .$castTo<boolean>()
          .as('openFunding'),
      ])
      .where('e.id', '=', id)
      .executeTakeFirst()
  },

  /** A new escrow, answered as `get` reads it. */
  /** The escrow row, written with `writes` (its key and account) in one statement. */
  insert(ex: Executor, writes: readonly Write[], row: Insertable<EscrowsTable>) {
    return withWrites(ex, writes)
      .insertInto('escrows')
      .values(row)
      .returning(escrowColumns)
      .executeTakeFirstOrThrow()
  },

  async update(
    ex: Executor,
    id: string,
    set: Partial<{
      status: EscrowStatus
      received: bigint
      fundedToChildren: bigint
      releasedCents: bigint
      releasedPayout: bigint
      releasedFee: bigint
      receiverId: string
      payTransferId: string | null
      payHoldId: string | null
      paidAt: Date
      releasedAt: Date
      cancelledAt: Date
    }>,
    now: Date,
  ) {
    await ex
      .updateTable('escrows')
      .set({ ...set, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .execute()
  },

  /**
   * A release in one statement: the escrow's released totals (and status) updated, its
   * `escrow_releases` row written, and the escrow answered as it is now.
   */
  recordRelease(
    ex: Executor,
    id: string,
    set: {
      releasedCents: bigint
      releasedPayout: bigint
      releasedFee: bigint
      receiverId: string
      status?: EscrowStatus
    },
    r: {
      id: string
      escrowId: string
      receiverId: string
      cents: bigint
      payout: bigint
      fee: bigint
      networkFee: bigint
      refund: bigint
      final: boolean
      requestKey: string | null
    },
    now: Date,
  ) {
    return ex
      .with('release', (db) => db.insertInto('escrowReleases').values({ ...r, createdAt: now }))
      .updateTable('escrows')
      .set({ ...set, updatedAt: now, version: sql`version + 1` })
      .where('id', '=', id)
      .returning(escrowColumns)
      .executeTakeFirstOrThrow()
  },

  legs(ex: Executor, escrowId: string) {
    return ex
      .selectFrom('escrowLegs')
      .select(legColumns)
      .where('escrowId', '=', escrowId)
      .orderBy('seq')
      .execute()
  },

  /** New legs, each already queued: its transfer and its transaction record (one statement). */
  async insertLegs(
    ex: Executor,
    legs: {
      id: string
      escrowId: string
      kind: LegKind
      seq: number
      toAddress: string
      amount: bigint
      outgoingId: string
      transactionId: string | null
      attempt: number
    }[],
    now: Date,
  ) {
    if (legs.length === 0) return
    await ex
      .insertInto('escrowLegs')
      .values(legs.map((l) => ({ ...l, amount: l.amount.toString(), createdAt: now, updatedAt: now })))
      .execute()
  },

  async updateLeg(
    ex: Executor,
    id: string,
    set: Partial<{
      status: LegStatus
      attempt: number
      failures: number
      outgoingId: string | null
      txHash: string | null
      transactionId: string | null
      lastError: string | null
    }>,
    now: Date,
  ): Promise<void> {
    await ex
      .updateTable('escrowLegs')
      .set({ ...set, updatedAt: now })
      .where('id', '=', id)
      .execute()
  },

  getLeg(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('escrowLegs').select(legColumns).where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  releaseByKey(ex: Executor, escrowId: string, requestKey: string) {
    return ex
      .selectFrom('escrowReleases')
      .select(['id', 'cents', 'payout', 'fee', 'networkFee', 'refund', 'final'])
      .where('escrowId', '=', escrowId)
      .where('requestKey', '=', requestKey)
      .executeTakeFirst()
  },

  /** Escrows (id, status) funded by a parent escrow. */
  parties(ex: Executor, ids: string[]) {
    return ex.selectFrom('escrows').select(['id', 'payerId', 'receiverId']).where('id', 'in', ids).execute()
  },

  children(ex: Executor, parentEscrowId: string) {
    return ex
      .selectFrom('escrows')
      .select(['id', 'status', 'amountToPay'])
      .where('parentEscrowId', '=', parentEscrowId)
      .execute()
  },

  async userLive(
    ex: Executor,
    userId: string,
  ): Promise<{ id: string; email: string | null; firstName: string } | undefined> {
    return ex
      .selectFrom('users')
      .select(['id', 'email', 'firstName'])
      .where('id', '=', userId)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },
}

/** An escrow row as `escrowRepo.get` reads it. */
export type EscrowRow = NonNullable<Awaited<ReturnType<typeof escrowRepo.get>>>
