// Escrow rules: initiation with a quote (#13), payment detection (deposit hook) and validation
// (#14), release in on-chain legs (#15), cancellation. Legs are sent by `legs.ts`.
import type { Logger } from 'pino'
import { getAddress } from 'viem'
import type { Db, Tx } from '../../db/index.ts'
import type { EscrowStatus } from '../../db/tables/escrow.ts'
import { AppError, errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { confirmPassword } from '../account/password-guard.ts'
import type { CollectionService } from '../collections/service.ts'
import type { CoinService } from '../payment/types.ts'
import type { TransactionService } from '../transactions/service.ts'
import type { Ledger } from '../wallet/ledger.ts'
import type { WalletService } from '../wallet/service.ts'
import type { Deposit } from '../wallet/watcher.ts'
import type { EscrowPayouts, PlannedLeg } from './payouts.ts'
import {
  centsToNumber,
  computeQuote,
  parseDecimal,
  QuoteError,
  unitsToDecimal,
  unitsToNumber,
  usdToCents,
} from './quote.ts'
import { escrowRepo } from './repo.ts'
import type { InitiateInput, PayInput } from './schemas.ts'

/** How long a quote's rate is guaranteed. */
export const QUOTE_VALIDITY_MS = 30 * 60 * 1000
/** Gas planned per transfer of a token (an ERC-20 transfer uses ~35–65k). */
export const TOKEN_TRANSFER_GAS = 100_000n
export const NATIVE_TRANSFER_GAS = 21_000n
/** ledger owner ids of the platform's revenue accounts (kind platform_fee) */
export const PLATFORM_FEE_OWNER = ''
export const NETWORK_FEE_OWNER = 'network'

export type PublicStatus = 'waiting' | 'paid' | 'released' | 'cancelled'
export const publicStatus = (s: EscrowStatus): PublicStatus => (s === 'releasing' ? 'paid' : s)

export interface EscrowDeps {
  db: Db
  clock: Clock
  log: Logger
  chain: ChainAdapter
  coins: CoinService
  rates: { getRate(reference: string): Promise<string> }
  ledger: Ledger
  wallets: WalletService
  collections: CollectionService
  payouts: EscrowPayouts
  transactions: TransactionService
  /** checks the code confirming a sensitive action and runs `then` in the transaction using it up */
  verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
  platformFeePercent: number
  /** payment methods beside crypto (a card provider when configured) */
  cardPayments: boolean
}

type EscrowRow = NonNullable<Awaited<ReturnType<typeof escrowRepo.get>>>

export class EscrowService {
  constructor(private readonly deps: EscrowDeps) {}

  async #rate(coin: string): Promise<string> {
    let rate: string
    try {
      rate = await this.deps.rates.getRate(coin)
    } catch (err) {
      this.deps.log.warn({ err: err instanceof Error ? err.message : String(err), coin }, 'rate unavailable')
      throw errors.unavailable('The USD rate of this coin is unavailable right now; try again shortly')
    }
    if (parseDecimal(rate).digits === 0n)
      throw errors.unavailable('The USD rate of this coin is unavailable right now; try again shortly')
    return rate
  }

  /** #13 */
  async initiate(payerId: string, input: InitiateInput) {
    const { db, clock, coins, chain, wallets, ledger, collections } = this.deps
    const title = input.title.trim()
    const description = input.description.trim()
    if (!title) throw errors.field('/title', 'must not be blank')
    if (!description) throw errors.field('/description', 'must not be blank')
    let cents: bigint
    try {
      cents = usdToCents(input.amount)
    } catch (err) {
      if (err instanceof QuoteError) throw errors.field('/amount', err.message)
      throw err
    }
    const coin = await coins.get(input.coin).catch((err) => {
      if (err instanceof AppError) throw errors.field('/coin', 'unknown or inactive coin')
      throw err
    })
    const now = clock.now()
    if (input.dueDate !== undefined) {
      const d = new Date(`${input.dueDate}T00:00:00.000Z`)
      if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== input.dueDate)
        throw errors.field('/dueDate', 'dueDate must be a real date, YYYY-MM-DD')
      if (input.dueDate < now.toISOString().slice(0, 10))
        throw errors.field('/dueDate', 'dueDate must be today or later')
    }
    if (input.receiverId === payerId) throw errors.field('/receiverId', 'the receiver cannot be yourself')
    const receiver = await escrowRepo.userLive(db, input.receiverId)
    if (!receiver) throw errors.notFound('receiver')

    const rate = await this.#rate(coin.reference)
    let quote: ReturnType<typeof computeQuote>
    try {
      quote = computeQuote({ cents, rate, decimals: coin.decimals, feePercent: this.deps.platformFeePercent })
    } catch (err) {
      if (err instanceof QuoteError)
        throw errors.businessRule(err.message, { errors: [{ path: '/amount', message: err.message }] })
      throw err
    }
    const escrowId = newId(now.getTime())
    const expiresAt = new Date(now.getTime() + QUOTE_VALIDITY_MS)
    const parent = input.parent ? await this.#parentFor(payerId, input.parent, coin.reference) : undefined
    const { collectionId, address } = await db.transaction().execute(async (tx) => {
      const key = await wallets.createKey(tx, 'escrow', escrowId)
      await ledger.ensureAccount(tx, 'escrow', escrowId, coin.reference)
      const fields = {
        name: title,
        description,
        paymentFee: unitsToDecimal(cents, 2),
        ...(input.dueDate !== undefined ? { deliveryDate: input.dueDate } : {}),
        isPrivate: input.isPrivate ?? false,
      }
      const link = {
        receiverId: input.receiverId,
        escrowId,
        isFundingRequest: input.isFundingRequest ?? false,
      }
      const collectionId = parent
        ? await collections.createIn(
            tx,
            payerId,
            { type: 'job', ...fields, parent: parent.collectionId, isParentFunded: true },
            link,
          )
        : await collections.createForEscrow(tx, payerId, { ...fields, ...link })
      await tx
        .insertInto('escrows')
        .values({
          id: escrowId,
          collectionId,
          payerId,
          receiverId: input.receiverId,
          parentEscrowId: parent?.escrowId ?? null,
          coin: coin.reference,
          decimals: coin.decimals,
          address: key.address,
          escrowCents: cents,
          rate,
          feePercent: String(this.deps.platformFeePercent),
          coinEscrowAmount: quote.coinEscrowAmount,
          expectedFee: quote.expectedFee,
          amountToPay: quote.amountToPay,
          usdFeeCents: quote.usdFeeCents,
          usdAmountCents: quote.usdAmountCents,
          expiresAt,
          createdAt: now,
          updatedAt: now,
        })
        .execute()
      if (parent) await this.#fundChild(tx, parent.escrowId, key.address, quote.amountToPay, rate)
      return { collectionId, address: key.address }
    })
    const d = coin.decimals
    return {
      coin: coin.reference,
      address: getAddress(address),
      escrowAmount: centsToNumber(cents),
      coinEscrowAmount: unitsToNumber(quote.coinEscrowAmount, d),
      expectedFee: unitsToNumber(quote.expectedFee, d),
      amountToPay: unitsToNumber(quote.amountToPay, d),
      usdFee: centsToNumber(quote.usdFeeCents),
      usdAmount: centsToNumber(quote.usdAmountCents),
      feePercentage: this.deps.platformFeePercent,
      rate: Number(rate),
      chainId: String(chain.chainId),
      contractAddress: coin.contractAddress ?? '',
      paymentMethods: this.deps.cardPayments ? ['crypto', 'card'] : ['crypto'],
      collectionId,
      escrowId,
      expiresAt: expiresAt.toISOString(),
      decimals: d,
      coinEscrowAmountBaseUnits: quote.coinEscrowAmount.toString(),
      expectedFeeBaseUnits: quote.expectedFee.toString(),
      amountToPayBaseUnits: quote.amountToPay.toString(),
    }
  }

  /**
   * The parent of a child escrow: the caller's own top-level collection whose escrow is paid, in
   * the same coin. Someone else's private collection is 404; someone else's public one 403.
   */
  async #parentFor(payerId: string, parentCollectionId: string, coin: string) {
    const state = await this.deps.collections.escrowState(this.deps.db, parentCollectionId)
    const visible = state && (!state.isPrivate || state.creatorId === payerId || state.receiverId === payerId)
    if (!state || !visible) throw errors.notFound('parent collection')
    if (state.creatorId !== payerId)
      throw errors.forbidden('Child escrows can only be funded from your own collections')
    if (!state.escrowId || state.escrowStatus !== 'paid')
      throw errors.businessRule('The parent collection’s escrow is not paid (or already released)', {
        errors: [{ path: '/parent', message: 'the parent escrow must be paid and not released' }],
      })
    const parent = await escrowRepo.get(this.deps.db, state.escrowId)
    if (!parent) throw errors.notFound('parent collection')
    if (parent.coin !== coin) throw errors.field('/coin', 'a child escrow must use its parent’s coin')
    return { collectionId: parentCollectionId, escrowId: parent.id }
  }

  /**
   * Funds a new child escrow from its parent's balance (inside the child's creation): the parent
   * must be paid, and what it already gave its children plus this child's amountToPay must stay
   * within what it received minus its own fee. The move is an on-chain transfer from the parent's
   * address to the child's; the deposit watcher credits the child, which then becomes paid.
   */
  async #fundChild(tx: Tx, parentEscrowId: string, childAddress: string, amount: bigint, rate: string) {
    const parent = (await escrowRepo.get(tx, parentEscrowId, true))!
    if (parent.status !== 'paid')
      throw errors.businessRule('The parent escrow is not paid (or is being released)', {
        errors: [{ path: '/parent', message: 'the parent escrow must be paid and not released' }],
      })
    const funded = BigInt(parent.fundedToChildren) + amount
    const available = BigInt(parent.received) - BigInt(parent.expectedFee)
    if (funded > available)
      throw errors.insufficientBalance('The parent escrow does not hold enough for this child escrow')
    await escrowRepo.update(tx, parent.id, { fundedToChildren: funded }, this.deps.clock.now())
    await this.deps.payouts.queue(tx, parent, [{ kind: 'fund', to: childAddress, amount }], rate)
  }

  /** An escrow the caller may see (payer or receiver); anyone else gets 404. */
  async #visible(userId: string, escrowId: string): Promise<EscrowRow> {
    const row = await escrowRepo.get(this.deps.db, escrowId)
    if (!row || (row.payerId !== userId && row.receiverId !== userId)) throw errors.notFound('escrow')
    return row
  }

  /**
   * Deposit hook (inside the watcher's crediting transaction): a payment to an escrow address in
   * its coin adds to `received`; reaching amountToPay makes the escrow paid. Value arriving at a
   * cancelled or released escrow is sent back to the payer.
   */
  async onDeposit(tx: Tx, deposit: Deposit): Promise<void> {
    if (deposit.ownerKind !== 'escrow') return
    const row = await escrowRepo.get(tx, deposit.ownerId, true)
    if (!row || row.coin !== deposit.coin) return
    const account = await this.deps.ledger.ensureAccount(tx, 'escrow', row.id, row.coin)
    // Gas top-ups to the address are credited to the platform's account, not to the escrow.
    if (deposit.accountId !== account) return
    const now = this.deps.clock.now()
    const received = BigInt(row.received) + deposit.amount
    const set: Parameters<typeof escrowRepo.update>[2] = { received }
    if (row.status === 'waiting' && received >= BigInt(row.amountToPay)) {
      set.status = 'paid'
      set.paidAt = now
      await this.deps.collections.markEscrow(tx, row.collectionId, { state: 'paid', escrowId: row.id })
    }
    await escrowRepo.update(tx, row.id, set, now)
    // Value arriving once the escrow is cancelled or its release has begun has nowhere to go but
    // back to the payer.
    if (row.status === 'cancelled' || row.status === 'releasing' || row.status === 'released') {
      const refund = {
        kind: 'refund' as const,
        to: await this.#userAddress(tx, row.payerId),
        amount: deposit.amount,
      }
      await this.deps.payouts.queue(tx, row, [refund], await this.deps.transactions.rateOf(row.coin))
    }
  }

  /** #14 */
  async validate(userId: string, escrowId: string) {
    await this.#visible(userId, escrowId)
    try {
      await this.deps.wallets.scanNow()
    } catch (err) {
      // The stored state is still the best answer when the chain cannot be read right now.
      this.deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'escrow validation scan failed',
      )
    }
    const row = (await escrowRepo.get(this.deps.db, escrowId))!
    const status = publicStatus(row.status)
    const received = BigInt(row.received)
    const symbol = this.deps.chain.coin(row.coin).symbol
    const message =
      status === 'paid'
        ? 'Payment has already been made'
        : status === 'released'
          ? 'Payment has already been made and released'
          : status === 'cancelled'
            ? 'This escrow was cancelled'
            : received > 0n
              ? `Partial payment received: ${unitsToDecimal(received, row.decimals)} of ${unitsToDecimal(BigInt(row.amountToPay), row.decimals)} ${symbol}`
              : 'Awaiting payment'
    return {
      message,
      data: {
        escrowId: row.id,
        paymentAmount: unitsToNumber(received, row.decimals),
        paymentAddress: getAddress(row.address),
        receiverId: row.receiverId,
        status,
      },
    }
  }

  async #userAddress(tx: Tx, userId: string): Promise<string> {
    const key = await this.deps.wallets.keyOf(tx, 'user', userId)
    if (key) return key.address
    return (await this.deps.wallets.createKey(tx, 'user', userId)).address
  }

  /** The network fee kept from the platform fee: the planned gas of the release, in the escrow's coin. */
  async #networkFee(row: EscrowRow, legs: number): Promise<bigint> {
    const { chain } = this.deps
    const coin = chain.coin(row.coin)
    const native = chain.coins.find((c) => !c.isToken)
    let fees: Awaited<ReturnType<ChainAdapter['estimateFees']>>
    try {
      fees = await chain.estimateFees()
    } catch {
      throw errors.unavailable('The chain is unreachable right now; try again shortly')
    }
    const price = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
    const gas = (coin.isToken ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS) * BigInt(legs) + NATIVE_TRANSFER_GAS
    const wei = gas * price
    const expected = BigInt(row.expectedFee)
    if (!coin.isToken || !native) return wei < expected ? wei : expected
    // wei × (USD per native coin) ÷ (USD per token), in token base units, rounded up
    const nr = parseDecimal(await this.#rate(native.reference))
    const tr = parseDecimal(row.rate)
    const num = wei * nr.digits * 10n ** BigInt(coin.decimals + tr.scale)
    const den = tr.digits * 10n ** BigInt(native.decimals + nr.scale)
    const units = (num + den - 1n) / den
    return units < expected ? units : expected
  }

  /** #15 */
  async release(userId: string, escrowId: string) {
    const { db, clock, ledger, collections } = this.deps
    const row = await this.#visible(userId, escrowId)
    if (row.payerId !== userId) throw errors.forbidden('Only the payer may release this escrow')
    if (row.status === 'released') {
      // A refund of a payment that arrived after the release, once it ran out of retries, is sent
      // again from here (it has no other way out of the escrow's account).
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        return locked.status === 'released' ? this.deps.payouts.retryFailed(tx, locked) : 0
      })
      if (retried > 0) return { message: 'Release retried: the failed refund is being sent again' }
      throw errors.conflict('This escrow has already been released')
    }
    if (row.status === 'cancelled') throw errors.conflict('This escrow was cancelled')
    if (row.status === 'waiting') throw errors.businessRule('The escrow has not been paid yet')
    if (row.status === 'releasing') {
      // Only legs that ran out of retries can be started again; the rest are under way.
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        const legs = await escrowRepo.legs(tx, escrowId)
        if (locked.status !== 'releasing' || !legs.some((l) => l.status === 'failed')) return false
        await this.deps.payouts.retryFailed(tx, locked)
        return true
      })
      if (!retried) throw errors.conflict('This escrow is already being released')
      return { message: 'Release retried: the failed payouts are being sent again' }
    }
    const children = await escrowRepo.children(db, escrowId)
    // A paid escrow's only legs are its children's funding. Until each is settled, the escrow's
    // ledger balance still holds value that is already on its way to (or at) a child, and a
    // release would plan its legs (the refund above all) from that wrong balance.
    const unsettled = (await escrowRepo.legs(db, escrowId)).some((l) => l.status !== 'completed')
    if (unsettled || children.some((c) => c.status === 'waiting')) {
      // A child's funding that failed for good is sent again by calling release.
      const retried = await db.transaction().execute(async (tx) => {
        const locked = (await escrowRepo.get(tx, escrowId, true))!
        return locked.status === 'paid' ? this.deps.payouts.retryFailed(tx, locked) : 0
      })
      if (retried > 0)
        return { message: 'The funding of a child escrow failed earlier and is being sent again' }
      throw errors.businessRule('A child escrow funded from this one is still being funded')
    }
    const [networkFee, rate, receiverAddress, payerAddress] = await Promise.all([
      this.#networkFee(row, 4),
      this.deps.transactions.rateOf(row.coin),
      db.transaction().execute((tx) => this.#userAddress(tx, row.receiverId)),
      db.transaction().execute((tx) => this.#userAddress(tx, row.payerId)),
    ])
    const { treasury, gasWallet } = this.deps.chain
    await db.transaction().execute(async (tx) => {
      const locked = (await escrowRepo.get(tx, escrowId, true))!
      if (locked.status === 'released' || locked.status === 'releasing')
        throw errors.conflict('This escrow has already been released')
      if (locked.status !== 'paid') throw errors.conflict('This escrow cannot be released now')
      // (re-checked under the escrow's lock: a child funded meanwhile adds a leg)
      if ((await escrowRepo.legs(tx, locked.id)).some((l) => l.status !== 'completed'))
        throw errors.businessRule('A child escrow funded from this one is still being funded')
      const balance = await ledger.balance(tx, 'escrow', locked.id, locked.coin)
      const payout = BigInt(locked.coinEscrowAmount)
      const feeLeft = BigInt(locked.expectedFee)
      // What no child escrow holds: children are funded out of the price first, then out of an
      // overpayment; never out of the fee (funding is capped at received − expectedFee), so the
      // fee legs are always the whole expectedFee and only the rest goes back to the payer.
      const funded = BigInt(locked.fundedToChildren)
      const payoutLeft = payout > funded ? payout - funded : 0n
      const net = networkFee < feeLeft ? networkFee : feeLeft
      const legs: PlannedLeg[] = [
        { kind: 'payout', to: receiverAddress, amount: payoutLeft },
        { kind: 'fee', to: gasWallet.address.toLowerCase(), amount: net },
        { kind: 'platformFee', to: treasury.address.toLowerCase(), amount: feeLeft - net },
      ]
      const planned = payoutLeft + feeLeft
      if (balance < planned) throw errors.businessRule('The escrow holds less than its payouts')
      if (balance > planned) legs.push({ kind: 'refund', to: payerAddress, amount: balance - planned })
      await escrowRepo.update(tx, locked.id, { status: 'releasing' }, clock.now())
      await this.deps.payouts.queue(tx, locked, legs, rate)
      // Legs with nothing to send are done at once.
      for (const l of legs)
        if (l.amount === 0n && l.kind !== 'refund')
          await collections.recordPayout(tx, locked.collectionId, l.kind as 'payout', 'completed')
    })
    return { message: 'Escrow release started: the payout and fees are being sent' }
  }

  /** Cancels an unpaid escrow; what it already received goes back to the payer. */
  async cancel(userId: string, escrowId: string) {
    const row = await this.#visible(userId, escrowId)
    if (row.payerId !== userId) throw errors.forbidden('Only the payer may cancel this escrow')
    const payerAddress = await this.deps.db.transaction().execute((tx) => this.#userAddress(tx, row.payerId))
    const rate = await this.deps.transactions.rateOf(row.coin)
    return this.deps.db.transaction().execute(async (tx) => {
      const locked = (await escrowRepo.get(tx, escrowId, true))!
      if (locked.status === 'cancelled') {
        // A refund that ran out of retries has no other way out of the escrow's account.
        if ((await this.deps.payouts.retryFailed(tx, locked)) > 0)
          return { message: 'The refund that failed earlier is being sent again' }
        throw errors.conflict('This escrow is already cancelled')
      }
      if (locked.status !== 'waiting')
        throw errors.conflict('A paid escrow cannot be cancelled; release it instead')
      const now = this.deps.clock.now()
      await escrowRepo.update(tx, locked.id, { status: 'cancelled', cancelledAt: now }, now)
      await this.deps.collections.markEscrow(tx, locked.collectionId, {
        state: 'cancelled',
        escrowId: locked.id,
      })
      const balance = await this.deps.ledger.balance(tx, 'escrow', locked.id, locked.coin)
      if (balance > 0n)
        await this.deps.payouts.queue(
          tx,
          locked,
          [{ kind: 'refund', to: payerAddress, amount: balance }],
          rate,
        )
      return {
        message:
          balance > 0n
            ? 'Escrow cancelled; the amount received is being returned to your wallet'
            : 'Escrow cancelled',
      }
    })
  }

  /**
   * Pays an escrow from the payer's in-app wallet: what is still missing of amountToPay moves on
   * chain from the payer's address to the escrow address. Needs the account password, and the
   * two-factor code when two-factor login is on (as for withdrawals).
   */
  async pay(userId: string, input: PayInput) {
    const { db } = this.deps
    const row = await this.#visible(userId, input.escrowId)
    if (row.payerId !== userId) throw errors.forbidden('Only the payer may pay this escrow')
    const user = await db
      .selectFrom('users')
      .select(['passwordHash', 'twoFaEnabled'])
      .where('id', '=', userId)
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
    if (!user) throw errors.unauthenticated()
    await confirmPassword(db, {
      userId,
      passwordHash: user.passwordHash,
      password: input.password,
      action: 'escrow.pay',
      ip: null,
      now: this.deps.clock.now(),
      message: 'Wrong password',
    })
    if (user.twoFaEnabled && !input.code)
      throw errors.field('/code', 'the two-factor code is required when two-factor login is on')
    const rate = await this.deps.transactions.rateOf(row.coin)
    const write = async (tx: Tx) => {
      const locked = (await escrowRepo.get(tx, row.id, true))!
      if (locked.status !== 'waiting') throw errors.conflict('This escrow is not awaiting payment')
      if (await this.deps.payouts.payUnderWay(tx, locked))
        throw errors.conflict('A payment of this escrow is already under way')
      const missing = BigInt(locked.amountToPay) - BigInt(locked.received)
      if (missing <= 0n) throw errors.conflict('This escrow is already paid')
      const balance = await this.deps.ledger.balance(tx, 'user', userId, locked.coin)
      if (balance < missing) throw errors.insufficientBalance('Your wallet holds less than the amount to pay')
      await this.deps.payouts.pay(tx, locked, missing, rate)
      return {
        message: 'Payment sent from your wallet; the escrow is paid once the transfer is confirmed',
      }
    }
    if (user.twoFaEnabled) return this.deps.verifySensitiveCode(userId, input.code!, write)
    return db.transaction().execute(write)
  }
}
