// Direct deposits: anyone, without an account, pays a public collection. Each order is an escrow
// of the collection opened for its creator (its own custodial address, credited by the deposit
// watcher, paid once the full amount arrived: the collection is then funded), with the payer known
// only by the email and/or the refund address they gave. An order not paid in time expires: its
// escrow is cancelled and what arrived goes back to the payer's address (see payer-refund.ts).
// No answer depends on whether the email belongs to an account: it is never looked up.
import type { Logger } from 'pino'
import { getAddress, isAddress } from 'viem'
import type { Db } from '../../db/index.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import {
  centsToNumber,
  formatCents,
  formatUnits,
  unitsToNumber,
  usdTextToCents,
} from '../../platform/money/index.ts'
import { type DirectDepositRow, directDepositRepo } from './direct-deposit-repo.ts'
import type { DirectDepositInput, DirectDepositValidateInput, OrderStatus } from './direct-deposit-schemas.ts'
import { paymentFigures } from './payment-figures.ts'
import type { EscrowCollections } from './ports.ts'
import { MAX_ESCROW_CENTS, MIN_ESCROW_CENTS, QuoteError, usdToCents } from './quote.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'
import type { EscrowService } from './service.ts'

export const DIRECT_DEPOSIT_EXPIRY_JOB = 'direct-deposit.expire'
export interface DirectDepositExpiry {
  orderId: string
}
declare module '../../platform/jobs/queue.ts' {
  interface JobPayloads {
    'direct-deposit.expire': DirectDepositExpiry
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const ZERO = `0x${'0'.repeat(40)}`
/** Collection statuses that still await their payment. */
const OPEN = new Set(['pending', 'waiting'])

type CollectionState = NonNullable<Awaited<ReturnType<EscrowCollections['escrowState']>>>

export interface DirectDepositDeps {
  db: Db
  clock: Clock
  log: Logger
  chain: ChainAdapter
  jobs: JobQueue
  collections: EscrowCollections
  escrow: EscrowService
}

/** The payer as given: `owner` (the client SDK's field) fills the one of email/address missing. */
export function payerOf(input: Pick<DirectDepositInput, 'email' | 'address' | 'owner'>) {
  let email = input.email?.trim().toLowerCase()
  let address = input.address?.toLowerCase()
  if (input.address !== undefined && !isAddress(input.address))
    throw errors.field('/address', 'not a valid address (mixed case must be the checksummed form)')
  const owner = input.owner?.trim()
  if (owner) {
    if (/^0x[0-9a-fA-F]{40}$/.test(owner)) {
      if (!isAddress(owner)) throw errors.field('/owner', 'not a valid address')
      address ??= owner.toLowerCase()
    } else if (EMAIL.test(owner)) email ??= owner.toLowerCase()
    else throw errors.field('/owner', 'must be the payer’s email or wallet address')
  }
  if (address === ZERO)
    throw errors.field(input.address ? '/address' : '/owner', 'the zero address cannot receive refunds')
  if (!email && !address)
    throw errors.validation('The payer’s email or wallet address is required', [
      { path: '/email', message: 'email or address is required' },
    ])
  return { email: email ?? null, address: address ?? null }
}

/** The collection's price in cents (its paymentFee), or null when it has none that can be paid. */
function priceOf(state: CollectionState): bigint | null {
  const cents = usdTextToCents(state.paymentFee) ?? 0n
  return cents < MIN_ESCROW_CENTS || cents > MAX_ESCROW_CENTS ? null : cents
}

const notPayable = (why: string) =>
  errors.named('COLLECTION_NOT_PAYABLE', `This collection cannot be paid: ${why}`)
const pending = () =>
  errors.named(
    'PAYMENT_ORDER_PENDING',
    'Another payment of this collection is awaited; try again once it is paid or has expired',
  )

export class DirectDeposits {
  constructor(private readonly deps: DirectDepositDeps) {}

  /** A public collection (private, deleted and unknown ones are all 404). */
  async #collection(id: string): Promise<CollectionState> {
    const state = await this.deps.collections.escrowState(this.deps.db, id)
    if (!state || state.isPrivate) throw errors.notFound('collection')
    return state
  }

  /**
   * 409 while the collection's escrow awaits another payment; an expired order in the way is
   * expired first. 422 once it is paid. Answers the collection's state afterwards.
   */
  async #clear(state: CollectionState): Promise<CollectionState> {
    if (!state.escrowId) return state
    const { db, escrow } = this.deps
    await escrow.absorb(state.escrowId)
    const row = await escrowRepo.get(db, state.escrowId)
    if (!row || row.status === 'cancelled') return state
    if (row.status !== 'waiting') throw notPayable('it is paid already')
    const order = await directDepositRepo.byEscrow(db, row.id)
    if (!order || this.deps.clock.now() < order.expiresAt) throw pending()
    await this.expire(order.id)
    if ((await escrowRepo.get(db, row.id))?.status !== 'cancelled') throw pending()
    return this.#collection(state.id)
  }

  /** POST /v1/payment-public/direct-deposit */
  async create(input: DirectDepositInput) {
    const { db, escrow, collections, clock, jobs } = this.deps
    const payer = payerOf(input)
    let asked: bigint
    try {
      asked = usdToCents(input.amount)
    } catch (err) {
      if (err instanceof QuoteError) throw errors.field('/amount', err.message)
      throw err
    }
    const coin = await escrow.coin(input.coin)
    let state = await this.#collection(input.collection)
    state = await this.#clear(state)
    if (state.escrowPaid) throw notPayable('it is paid already')
    if (!OPEN.has(state.status) || state.recipientCompletedJob)
      throw notPayable(`it is ${state.recipientCompletedJob ? 'delivered' : state.status}`)
    const price = priceOf(state)
    if (price === null) throw notPayable('it has no price (paymentFee of 1.00 to 1000000000 USD)')
    if (asked !== price)
      throw errors.named(
        'PAYMENT_AMOUNT_MISMATCH',
        `The amount must be the collection’s price: ${formatCents(price)} USD`,
        {
          price: centsToNumber(price),
          errors: [{ path: '/amount', message: `must be ${formatCents(price)}` }],
        },
      )
    const { rate, quote } = await escrow.quote(price, coin, '/amount')
    const now = clock.now()
    const escrowId = newId(now.getTime())
    const orderId = newId(now.getTime())
    try {
      await db.transaction().execute(async (tx) => {
        // Locks the collection: of two orders at once, the second finds the first's escrow.
        await collections.markEscrow(tx, state.id, { state: 'waiting', escrowId })
        const { expiresAt } = await escrow.open(tx, {
          id: escrowId,
          collectionId: state.id,
          // The collection's creator controls the escrow (release, cancel) as for its own payment.
          payerId: state.creatorId,
          receiverId: state.receiverId,
          coin,
          rate,
          quote,
          now,
        })
        await directDepositRepo.insert(tx, {
          id: orderId,
          escrowId,
          collectionId: state.id,
          payerEmail: payer.email,
          payerAddress: payer.address,
          expiresAt,
          createdAt: now,
          updatedAt: now,
        })
        await jobs.enqueue(
          tx,
          DIRECT_DEPOSIT_EXPIRY_JOB,
          { orderId },
          { runAt: expiresAt, dedupeKey: `${DIRECT_DEPOSIT_EXPIRY_JOB}:${orderId}` },
        )
      })
    } catch (err) {
      // Another order (or the creator's own payment) was linked meanwhile, or the job closed.
      if (err instanceof AppError && err.statusCode === 409) {
        const fresh = await this.#collection(state.id)
        if (fresh.escrowId && fresh.escrowStatus === 'waiting') throw pending()
        throw notPayable(`it is ${fresh.escrowPaid ? 'paid already' : fresh.status}`)
      }
      throw err
    }
    const row = (await escrowRepo.get(db, escrowId))!
    const order = (await directDepositRepo.get(db, orderId))!
    return this.#orderView(row, order, coin.contractAddress ?? '')
  }

  #orderView(row: EscrowRow, order: DirectDepositRow, contractAddress: string) {
    return {
      coin: row.coin,
      address: getAddress(row.address),
      ...paymentFigures(row, unitsToNumber, centsToNumber),
      chainId: String(this.deps.chain.chainId),
      contractAddress,
      paymentMethods: ['crypto'],
      collectionId: row.collectionId,
      orderId: order.id,
      expiresAt: order.expiresAt.toISOString(),
      decimals: row.decimals,
      amountToPayBaseUnits: String(row.amountToPay),
    }
  }

  /**
   * The expiry job (and any call that finds the order past its time): an order whose escrow still
   * awaits payment is cancelled, and what arrived goes back to the payer. Safe to run again.
   */
  async expire(orderId: string): Promise<void> {
    const { db, clock, escrow } = this.deps
    const order = await directDepositRepo.get(db, orderId)
    if (!order || order.expiredAt || clock.now() < order.expiresAt) return
    const row = await escrowRepo.get(db, order.escrowId)
    if (row?.status !== 'waiting') return
    try {
      await escrow.cancel(row.payerId, row.id, (tx) =>
        directDepositRepo.markExpired(tx, order.id, clock.now()),
      )
    } catch (err) {
      // Paid (or cancelled) in the meantime: nothing to expire. Anything else is retried.
      if (err instanceof AppError && (await escrowRepo.get(db, row.id))?.status !== 'waiting') return
      throw err
    }
  }

  /** POST /v1/payment-public/validate */
  async validate(input: DirectDepositValidateInput) {
    const { db, escrow, clock, log } = this.deps
    await this.#collection(input.collection)
    const found = input.order
      ? await directDepositRepo.get(db, input.order)
      : await directDepositRepo.latestOf(db, input.collection)
    if (!found || found.collectionId !== input.collection) throw errors.notFound('payment order')
    // A scan of the chain asked for (and waited for a short while), then what it credited applied.
    await escrow.check(found.escrowId)
    if (clock.now() >= found.expiresAt)
      await this.expire(found.id).catch((err) =>
        // The expiry job retries; the answer says `expired` meanwhile.
        log.warn(
          { err: err instanceof Error ? err.message : String(err), orderId: found.id },
          'order expiry failed',
        ),
      )
    const state = await this.#collection(input.collection)
    const order = (await directDepositRepo.get(db, found.id))!
    const row = (await escrowRepo.get(db, order.escrowId))!
    const status = this.#status(row, order)
    const d = row.decimals
    const message = {
      pending:
        BigInt(row.received) > 0n
          ? `Partial payment received: ${formatUnits(BigInt(row.received), d)} of ${formatUnits(BigInt(row.amountToPay), d)}`
          : 'Awaiting payment',
      paid: 'Payment has already been made',
      released: 'Payment has already been made and released',
      expired: 'This payment order expired; what arrived is returned to the payer',
      cancelled: 'The collection was cancelled; what arrived is returned to the payer',
      refunded: 'The collection was cancelled; the payment is returned to the payer',
    }[status]
    return {
      message,
      data: {
        _id: state.id,
        creator: state.creatorId,
        name: state.name,
        description: state.description,
        type: state.type,
        status: state.status,
        isFundingRequest: state.isFundingRequest,
        escrowPaid: state.escrowPaid,
        paymentStatus: status,
        paymentCoin: row.coin,
        paymentAddress: getAddress(row.address),
        expectedAmount: formatUnits(BigInt(row.amountToPay), d),
        usdExpectedAmount: formatCents(BigInt(row.usdAmountCents)),
        rate: row.rate,
        order: {
          id: order.id,
          status,
          amountToPay: unitsToNumber(BigInt(row.amountToPay), d),
          received: unitsToNumber(BigInt(row.received), d),
          amountToPayBaseUnits: String(row.amountToPay),
          receivedBaseUnits: String(row.received),
          expiresAt: order.expiresAt.toISOString(),
          refund: await this.#refund(row, order),
        },
      },
    }
  }

  #status(row: EscrowRow, order: DirectDepositRow): OrderStatus {
    switch (row.status) {
      case 'waiting':
        return this.deps.clock.now() >= order.expiresAt ? 'expired' : 'pending'
      case 'paid':
      case 'releasing':
        return 'paid'
      case 'released':
        return 'released'
      case 'cancelled':
        return row.paidAt ? 'refunded' : order.expiredAt ? 'expired' : 'cancelled'
    }
  }

  /** The refund's state: the escrow's refund legs, or what waits for an operator. */
  async #refund(row: EscrowRow, order: DirectDepositRow) {
    const d = row.decimals
    const owed = BigInt(order.operatorRefund)
    if (owed > 0n) return { status: 'operator' as const, amount: unitsToNumber(owed, d), txHash: null }
    const legs = (await escrowRepo.legs(this.deps.db, row.id)).filter((l) => l.kind === 'refund')
    if (legs.length === 0) return { status: 'none' as const, amount: 0, txHash: null }
    const amount = legs.reduce((s, l) => s + BigInt(l.amount), 0n)
    const status = legs.some((l) => l.status === 'failed')
      ? ('failed' as const)
      : legs.every((l) => l.status === 'completed')
        ? ('sent' as const)
        : ('sending' as const)
    return { status, amount: unitsToNumber(amount, d), txHash: legs.at(-1)?.txHash ?? null }
  }
}
