// Withdrawals to outside addresses (#22, #23): the request reserves the amount and the fee with
// two ledger holds on the user's wallet, in one transaction with the withdrawal row (linked to
// both), a pending transaction record and the outgoing transfer intent funded by the amount's
// hold. Settlement posts that hold to the chain when the transfer is mined or voids it when it
// fails; `outcomes.ts`, from settlement's reports, posts the fee's hold to the address's treasury
// account or voids it, and moves the withdrawal through processing to completed or failed.
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { getAddress, isAddress } from 'viem'
import type { Config } from '../../config.ts'
import type { Db, Tx } from '../../db/index.ts'
import type { WithdrawalStatus } from '../../db/tables/withdrawals.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import {
  AmountError,
  formatCents,
  formatUnits,
  parseUnits,
  unitsToCents,
  unitsToNumber,
} from '../../platform/money/index.ts'
import type { ConfirmPassword } from '../account/types.ts'
import type { EventService } from '../events/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { Coin, CoinService } from '../payment/types.ts'
import type { Halts, KeyStore, OutgoingSender } from '../settlement/types.ts'
import type { TransactionService } from '../transactions/types.ts'
import type { IdentityRequirement } from '../verification/types.ts'
import { feeHoldKey, withdrawalOutcomes } from './outcomes.ts'
import { withdrawalRepo } from './repo.ts'

/** the window of KYC_REQUIRED_FOR limits: a day's withdrawals count together */
const DAY_MS = 24 * 60 * 60 * 1000

export const WITHDRAWAL_PURPOSE = 'withdrawal'

/**
 * The flat network fee charged per withdrawal, in whole coins of the coin withdrawn. It is also
 * the smallest amount that may be withdrawn.
 */
export const WITHDRAWAL_FEES = { native: '0.001', token: '0.1' } as const

/** Wrong passwords per account (counted with every password-confirmed action) before 429. */
export { MAX_WRONG_PASSWORDS } from '../account/types.ts'

/** The largest amount accepted, in whole coins (keeps every value far inside NUMERIC(78,0)). */
export const MAX_AMOUNT = 1e15

export interface CreateWithdrawal {
  amount: number
  coin: string
  address: string
  password: string
  code?: string
}

export interface ListQuery {
  page: number
  limit: number
  status?: WithdrawalStatus
  coin?: string
}

export function feeOf(coin: { isToken: boolean; decimals: number }): bigint {
  return parseUnits(coin.isToken ? WITHDRAWAL_FEES.token : WITHDRAWAL_FEES.native, coin.decimals)
}

export class WithdrawalService {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      log: Logger
      config: Config
      coins: CoinService
      ledger: Ledger
      /** settlement's custodial keys: a withdrawal to the user's own address is refused */
      keys: Pick<KeyStore, 'address'>
      transactions: TransactionService
      outgoing: OutgoingSender
      chain: ChainAdapter
      jobs: JobQueue
      events: EventService
      verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
      /** the account password of a withdrawal */
      confirmPassword: ConfirmPassword
      /** coins halted by settlement: nothing is withdrawn in them (503 COIN_HALTED) */
      halts: Pick<Halts, 'assertNotHalted'>
      /** withdrawals that need a verified identity (KYC_REQUIRED_FOR): 403 IDENTITY_VERIFICATION_REQUIRED */
      identity: Pick<IdentityRequirement, 'assertAllowed'>
    },
  ) {
    deps.outgoing.handle(WITHDRAWAL_PURPOSE, withdrawalOutcomes(deps))
  }

  /**
   * #22. `requestKey` (the client's Idempotency-Key) keys the hold in the ledger: the same request
   * run a second time (a retry that took over the claim of a process that died after the commit,
   * or of a request still running) finds the first withdrawal instead of holding and sending again.
   */
  async create(
    userId: string,
    input: CreateWithdrawal,
    ip: string | null,
    requestKey?: string,
  ): Promise<{ withdrawalId: string }> {
    const { db, coins, keys, transactions, halts } = this.deps
    const coin = await coins.get(input.coin)
    // A halted coin's ledger may hold value the chain no longer has (a deep reorganisation, a
    // mismatch): refused at once rather than accepted and parked.
    await halts.assertNotHalted(coin.reference)
    const amount = this.#parseAmount(input.amount, coin)
    const fee = feeOf(coin)
    if (amount < fee)
      throw errors.businessRule(
        `The smallest withdrawal is ${formatUnits(fee, coin.decimals)} ${coin.symbol} (the network fee)`,
        'WITHDRAWAL_BELOW_MINIMUM',
        { minimum: unitsToNumber(fee, coin.decimals) },
      )
    const address = this.#parseAddress(input.address)
    await this.deps.identity.assertAllowed(userId, {
      action: 'withdrawal',
      coin,
      amount,
      // a limit counts the day's withdrawals too: splitting one does not pass under it
      recent: () =>
        withdrawalRepo.recentTotal(
          db,
          userId,
          coin.reference,
          new Date(this.deps.clock.now().getTime() - DAY_MS),
        ),
    })
    const own = await keys.address(db, 'user', userId)
    if (own && own === address.toLowerCase())
      throw errors.field('/address', 'The address is your own wallet address')

    if (!own) throw errors.unauthenticated()
    const user = await this.deps.confirmPassword(userId, input.password, 'withdrawal', ip)
    if (user.twoFaEnabled && (input.code === undefined || input.code === ''))
      throw errors.field('/code', 'A two-factor code is required: two-factor authentication is on')

    // Reads that may touch the network happen before the transaction opens. The answer shows the
    // USD value: no rate, no withdrawal (503).
    const rate = await transactions.requireRate(coin.reference)
    await transactions.chainRecordId()
    const write = async (tx: Tx) => {
      const { withdrawalId } = await this.#write(tx, {
        userId,
        coin,
        amount,
        fee,
        address,
        rate,
        from: own,
        ip,
        requestKey,
      })
      return { withdrawalId }
    }
    if (user.twoFaEnabled) return this.deps.verifySensitiveCode(userId, input.code!, write)
    return db.transaction().execute(write)
  }

  /**
   * A withdrawal the platform sent in a timeline a restore lost, recorded again in the caller's
   * transaction exactly as `create` records one (hold, record, transfer intent), without the
   * request's checks: the value has left already, and its coin is halted until this is done.
   * The caller settles the transfer with the mined transaction in the same transaction.
   */
  async recreate(
    tx: Tx,
    w: {
      userId: string
      coin: Pick<Coin, 'reference' | 'decimals' | 'symbol'>
      amount: bigint
      fee: bigint
      address: string
      from: string
      rate: string
    },
  ): Promise<{ withdrawalId: string; transferId: string }> {
    // #write reads only the coin's reference, decimals and symbol
    const { withdrawalId, transferId } = await this.#write(tx, {
      ...w,
      coin: w.coin as Coin,
      ip: null,
      recreated: true,
    })
    return { withdrawalId, transferId: transferId! }
  }

  /** An open (pending or processing) withdrawal, locked in `tx`, for matching a restored timeline's
   * transaction to it; undefined when there is none of that id or it is settled. */
  /** The ids of open withdrawals a transaction of this owner, coin, destination and amount could be. */
  async openMatching(tx: Tx, m: { ownerId: string; coin: string; address: string; amount: bigint }) {
    return (await withdrawalRepo.openMatching(tx, m)).map((w) => w.id)
  }

  async openForReattach(tx: Tx, id: string) {
    const w = await withdrawalRepo.lock(tx, id)
    if (!w || (w.status !== 'pending' && w.status !== 'processing')) return undefined
    return {
      id: w.id,
      ownerId: w.ownerId,
      coin: w.coin,
      address: w.address,
      amount: w.amount,
      outgoingId: w.outgoingId,
    }
  }

  #parseAmount(value: number, coin: Coin): bigint {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw errors.field('/amount', 'must be a positive number')
    if (value > MAX_AMOUNT) throw errors.field('/amount', `must be at most ${MAX_AMOUNT}`)
    try {
      return parseUnits(value, coin.decimals)
    } catch (err) {
      if (err instanceof AmountError) throw errors.field('/amount', `amount ${err.message}`)
      throw err
    }
  }

  #parseAddress(value: string): string {
    if (!/^0x[0-9a-fA-F]{40}$/.test(value))
      throw errors.field('/address', 'must be an EVM address (0x + 40 hex)')
    // Mixed case carries an EIP-55 checksum, which must be right; all lower or upper case has none.
    const body = value.slice(2)
    const mixed = body !== body.toLowerCase() && body !== body.toUpperCase()
    if (mixed && !isAddress(value, { strict: true }))
      throw errors.field('/address', 'the address checksum (EIP-55 mixed case) is wrong')
    if (/^0x0{40}$/i.test(value)) throw errors.field('/address', 'the zero address cannot receive funds')
    return getAddress(value.toLowerCase())
  }

  async #write(
    tx: Tx,
    w: {
      userId: string
      coin: Coin
      amount: bigint
      fee: bigint
      address: string
      rate: string
      from: string
      ip: string | null
      requestKey?: string | undefined
      /** recorded again after a restore (`recreate`): its coin may be halted */
      recreated?: boolean
    },
  ): Promise<{ withdrawalId: string; transferId: string | null }> {
    const { ledger, transactions, outgoing, clock, halts } = this.deps
    // Again in the transaction that reserves the value: a halt committed since the first look.
    if (!w.recreated) await halts.assertNotHalted(w.coin.reference, tx)
    const id = newId()
    const holdKey = w.requestKey
      ? `withdrawal-request:${w.userId}:${createHash('sha256').update(w.requestKey).digest('hex')}`
      : `withdrawal:${id}:hold`
    // Amount and fee reserved on the wallet (opened when missing), each by a hold, in one statement
    // (422 beyond what it has available, and nothing of the request kept); the wallet row lock
    // serialises concurrent withdrawals of one user and coin. The amount's hold funds the
    // transfer: settlement posts it to the chain or voids it. The fee's hold is the withdrawal's:
    // its outcome handlers post or void it.
    const held = await ledger.holdMany(tx, {
      kind: 'user',
      ownerId: w.userId,
      coin: w.coin.reference,
      holds: [
        { key: holdKey, amount: w.amount, kind: 'withdrawal', description: `Withdrawal ${id}: amount held` },
        ...(w.fee > 0n
          ? [
              {
                key: feeHoldKey(id),
                amount: w.fee,
                kind: 'withdrawal.fee',
                description: `Withdrawal ${id}: network fee held`,
              },
            ]
          : []),
      ],
    })
    const hold = held.holds[0]!
    if (hold.replayed) {
      // This request already ran to the end: answer its withdrawal, move nothing.
      const first = await withdrawalRepo.byHold(tx, w.userId, hold.id)
      if (
        !first ||
        first.coin !== w.coin.reference ||
        BigInt(first.amount) !== w.amount ||
        first.address.toLowerCase() !== w.address.toLowerCase()
      )
        throw errors.named('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request')
      return { withdrawalId: first.id, transferId: first.outgoingId }
    }
    const feeHold = w.fee > 0n ? held.holds[1] : undefined
    const amountText = formatUnits(w.amount, w.coin.decimals)
    // The record is written by the withdrawal's own statement, below.
    const record = await transactions.recordWrite(tx, {
      ownerId: w.userId,
      coin: w.coin.reference,
      amount: w.amount,
      type: 'withdrawal',
      method: 'sent',
      status: 'pending',
      description: `Withdrawal of ${amountText} ${w.coin.symbol} to ${w.address}`,
      txInfo: {
        senderAddress: getAddress(w.from),
        receiverAddress: w.address,
        asset: w.coin.symbol,
        amount: amountText,
      },
      rate: w.rate,
    })
    // The transfer (its key names this new withdrawal) and its job are written by the withdrawal's
    // own statement, below (settlement reads the row only in its reports, after the commit).
    // Settlement checks the amount's hold, answered by the ledger as it just wrote it.
    const sent = await outgoing.enqueueWrites(tx, {
      purpose: WITHDRAWAL_PURPOSE,
      referenceId: id,
      key: `withdrawal:${id}`,
      from: { kind: 'user', ownerId: w.userId },
      coin: w.coin.reference,
      to: w.address,
      amount: w.amount,
      fundingHoldId: hold.id,
    })
    const now = clock.now()
    // The row, its audit entry, its transaction record, its transfer and the transfer's job in one
    // statement.
    await withdrawalRepo.insertRequested(
      tx,
      {
        id,
        ownerId: w.userId,
        coin: w.coin.reference,
        address: w.address,
        amount: w.amount.toString(),
        fee: w.fee.toString(),
        usdValue: formatCents(unitsToCents(w.amount, w.coin.decimals, w.rate)),
        usdRate: w.rate,
        transactionId: record.id,
        holdId: hold.id,
        feeHoldId: feeHold?.id ?? null,
        outgoingId: sent.id,
        createdAt: now,
        updatedAt: now,
      },
      {
        userId: w.userId,
        action: 'withdrawal.requested',
        ip: w.ip,
        meta: { withdrawalId: id, coin: w.coin.reference, amount: w.amount.toString(), address: w.address },
      },
      [record.write, ...sent.writes],
    )
    return { withdrawalId: id, transferId: sent.id }
  }

  /** #23: the caller's withdrawals, newest first. */
  async list(userId: string, q: ListQuery) {
    const { db } = this.deps
    const { total, rows } = await withdrawalRepo.list(db, userId, q)
    const decimals = new Map(this.deps.chain.coins.map((c) => [c.reference, c.decimals]))
    return {
      pages: Math.ceil(total / q.limit),
      page: q.page,
      limit: q.limit,
      total,
      data: rows.map((r) => {
        const d = decimals.get(r.coin) ?? 18
        return {
          _id: r.id,
          owner: r.ownerId,
          coin: r.coin,
          address: r.address,
          amount: unitsToNumber(BigInt(r.amount), d),
          fee: unitsToNumber(BigInt(r.fee), d),
          usdValue: Number(r.usdValue),
          usdRate: Number(r.usdRate),
          status: r.status,
          retryCount: r.retryCount,
          errMsg: r.errMsg ?? [],
          txHash: r.txHash,
          createdAt: r.createdAt,
          updatedAt: r.updatedAt,
          __v: r.version,
        }
      }),
    }
  }
}
