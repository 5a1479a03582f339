// The crash-safe sender of outgoing chain transfers (`services.outgoing`), shared by withdrawals
// and escrow payouts. A transfer is enqueued in the caller's database transaction; a job then
// prepares it (fees, gas, a simulation), reserves its gas, takes the next nonce of the sending
// address under a row lock, signs it and STORES the signed transaction before broadcasting it.
// Whatever step a worker dies after, the next run resumes from the stored state: a stored
// transaction is re-broadcast (broadcasting is idempotent) or its receipt found, never re-signed.
//
// Money: the value is debited from the caller's `fundingAccountId` when the transfer is mined
// successfully; gas is always the platform's: it is reserved from the `treasury` account of the
// sending address (platform value parked there, topped up from the gas wallet when short) and the
// gas actually used is booked to the chain's clearing account.
import { sql } from 'kysely'
import type { Logger } from 'pino'
import { getAddress, type Hash, type Hex, isAddress } from 'viem'
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { OutgoingFromKind, OutgoingStatus } from '../../db/tables/withdrawals.ts'
import { AppError } from '../../http/errors.ts'
import { toChainError } from '../../platform/chain/errors.ts'
import {
  type ChainAdapter,
  ChainError,
  type ChainSigner,
  type FeeEstimate,
  type TransferReceipt,
} from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { Ledger } from '../wallet/ledger.ts'
import type { WalletService } from '../wallet/service.ts'

export const OUTGOING_JOB = 'outgoing.send'
export const GAS_TOPUP_PURPOSE = 'gas.topup'

/** Who signs: a custodial key (by owner) or one of the platform's own signers. */
export type OutgoingFrom =
  | { kind: 'user' | 'escrow' | 'treasury'; ownerId: string }
  | { kind: 'platform'; signer: 'gasWallet' | 'treasury' }

export interface EnqueueTransfer {
  /** what the transfer is for; selects the handlers (`withdrawal`, `escrow.payout`, ...) */
  purpose: string
  /** the caller's record (withdrawal id, escrow leg id); handed back to the handlers */
  referenceId: string
  /** unique per transfer: enqueueing the same key again returns the first transfer */
  key: string
  from: OutgoingFrom
  /** coin reference */
  coin: string
  /** destination address (any case; validated) */
  to: string
  /** base units, > 0 */
  amount: bigint
  /**
   * ledger account (same coin) that holds the value now and is debited → chain clearing when
   * the transfer is mined successfully. Required for custodial senders (the deposit watcher does
   * not book what the platform sends); optional for the platform signers (off-ledger wallets).
   */
  fundingAccountId?: string
  /** where the deposit watcher credits what arrives when `to` is a custodial address (default:
   * the address owner's account) */
  creditAccountId?: string
  /** free data kept with the transfer and handed back to the handlers */
  meta?: Record<string, unknown>
}

/** A transfer as handlers see it. */
export interface OutgoingView {
  id: string
  purpose: string
  referenceId: string
  coin: string
  from: string
  to: string
  amount: bigint
  status: OutgoingStatus
  /** failed attempts so far */
  failures: number
  errors: string[]
  nonce: number | null
  txHash: string | null
  meta: Record<string, unknown>
}

/** The result handed to `settled`. `responseData` is the JSON text to show (SPEC Errors 5). */
export type Settlement =
  | {
      ok: true
      txHash: string
      receipt: TransferReceipt
      /** JSON text of the receipt: transactionHash, blockNumber, blockHash, from, to, status, gasUsed, effectiveGasPrice, logs */
      responseData: string
    }
  | {
      ok: false
      /** set when the transaction was mined but reverted (its gas was spent) */
      txHash: string | null
      /** JSON text: { error: true, status, message, data: { code, reason, attempts, errors, txHash? } } */
      responseData: string
      message: string
      code: string
    }

export interface OutgoingHandlers {
  /** once, when a worker first picks the transfer up (in a transaction) */
  processing?: (tx: Tx, t: OutgoingView) => Promise<void>
  /** after each failed attempt that will be retried or is final (in a transaction) */
  attemptFailed?: (tx: Tx, t: OutgoingView, message: string) => Promise<void>
  /** exactly once, when the transfer completed or finally failed, in the transaction that settles
   * it (the sender's own ledger postings are in the same transaction) */
  settled: (tx: Tx, t: OutgoingView, outcome: Settlement) => Promise<void>
}

/** Thrown by the test hook: behaves like the worker process dying at that point. */
export class SimulatedCrash extends Error {
  constructor(readonly at: CrashPoint) {
    super(`simulated crash ${at}`)
    this.name = 'SimulatedCrash'
  }
}

export type CrashPoint = 'before-sign' | 'after-sign' | 'after-broadcast' | 'after-receipt'

/** A failure that retrying cannot fix. */
class PermanentFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export interface SenderOptions {
  /** failed attempts before a transfer fails for good */
  maxFailures: number
  /** backoff before retry n is baseDelayMs × 2^(n-1), capped at maxDelayMs */
  baseDelayMs: number
  maxDelayMs: number
  /** how long one run waits for the receipt before it counts as a failed attempt */
  receiptTimeoutMs: number
  receiptPollMs: number
  /** how long a transfer waiting for a gas top-up sleeps between checks */
  gasWaitMs: number
  /** a signed transfer whose fate the chain cannot tell yet is re-checked this often */
  stuckRecheckMs: number
  /** a top-up brings this many times the missing gas */
  topUpFactor: bigint
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  maxFailures: 5,
  baseDelayMs: 2000,
  maxDelayMs: 5 * 60_000,
  receiptTimeoutMs: 60_000,
  receiptPollMs: 250,
  gasWaitMs: 1000,
  stuckRecheckMs: 10 * 60_000,
  topUpFactor: 20n,
}

const FINAL: OutgoingStatus[] = ['completed', 'failed']
const NATIVE_GAS = 21_000n

const json = (value: unknown) => JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))

/** HTTP-like numeric status of a failure, for `responseData`. */
function statusOf(code: string): number {
  switch (code) {
    case 'UNAVAILABLE':
      return 503
    case 'INVALID_ARGUMENT':
    case 'UNKNOWN_COIN':
      return 400
    case 'NONCE_TOO_LOW':
      return 409
    default:
      return 422
  }
}

type Row = Awaited<ReturnType<OutgoingSender['load']>> & {}

interface Prepared {
  fees: FeeEstimate
  gas: bigint
  maxFee: bigint
}

export class OutgoingSender {
  readonly #handlers = new Map<string, OutgoingHandlers>()
  readonly options: SenderOptions
  /** tests only: called at each crash point; throw SimulatedCrash to "kill" the worker there */
  testHook: ((at: CrashPoint, transferId: string) => void | Promise<void>) | undefined

  constructor(
    private readonly deps: {
      db: Db
      chain: ChainAdapter
      clock: Clock
      log: Logger
      jobs: JobQueue
      ledger: Ledger
      wallets: WalletService
    },
    options: Partial<SenderOptions> = {},
  ) {
    this.options = { ...DEFAULT_SENDER_OPTIONS, ...options }
    // Top-ups are transfers of this sender too; the watcher credits their arrival.
    this.on(GAS_TOPUP_PURPOSE, { settled: async () => {} })
  }

  get chainKey() {
    return String(this.deps.chain.chainId)
  }

  /** Registers the handlers of a purpose (replaces earlier ones). */
  on(purpose: string, handlers: OutgoingHandlers) {
    this.#handlers.set(purpose, handlers)
  }

  /** Shorthand for `on(purpose, { settled })`. */
  onSettled(purpose: string, settled: OutgoingHandlers['settled']) {
    const prev = this.#handlers.get(purpose)
    this.#handlers.set(purpose, { ...prev, settled })
  }

  // ---- enqueue ------------------------------------------------------------------------------

  /**
   * Queues a transfer inside the caller's transaction (with the change that needs it): nothing
   * happens unless that transaction commits. Returns the transfer id; the same `key` returns the
   * first transfer's id.
   */
  async enqueue(tx: Tx, input: EnqueueTransfer): Promise<{ id: string; replayed: boolean }> {
    const { chain, clock } = this.deps
    const coin = chain.coin(input.coin)
    if (typeof input.amount !== 'bigint' || input.amount <= 0n)
      throw new Error('outgoing amount must be a positive bigint')
    if (!isAddress(input.to, { strict: false })) throw new Error('outgoing destination is not an address')
    if (!input.key || input.key.length > 300) throw new Error('outgoing transfer needs a key')
    let fromAddress: string
    let fromOwnerId: string
    if (input.from.kind === 'platform') {
      fromAddress = this.#signer(input.from.signer).address.toLowerCase()
      fromOwnerId = input.from.signer
    } else {
      const key = await this.deps.wallets.keyOf(tx, input.from.kind, input.from.ownerId)
      if (!key) throw new Error(`no custodial key for ${input.from.kind} ${input.from.ownerId}`)
      if (!input.fundingAccountId) throw new Error('a custodial sender needs a funding account')
      fromAddress = key.address.toLowerCase()
      fromOwnerId = input.from.ownerId
    }
    if (input.fundingAccountId) {
      const acc = await this.deps.ledger.account(tx, input.fundingAccountId)
      if (!acc || acc.coin !== coin.reference) throw new Error('funding account of another coin')
    }
    const id = newId()
    const now = clock.now()
    const inserted = await tx
      .insertInto('outgoingTransfers')
      .values({
        id,
        chainId: this.chainKey,
        idempotencyKey: input.key,
        purpose: input.purpose,
        referenceId: input.referenceId,
        fromKind: input.from.kind as OutgoingFromKind,
        fromOwnerId,
        fromAddress,
        coin: coin.reference,
        toAddress: input.to.toLowerCase(),
        amount: input.amount.toString(),
        fundingAccountId: input.fundingAccountId ?? null,
        creditAccountId: input.creditAccountId ?? null,
        meta: JSON.stringify(input.meta ?? {}),
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning('id')
      .executeTakeFirst()
    if (!inserted) {
      const first = await tx
        .selectFrom('outgoingTransfers')
        .select('id')
        .where('idempotencyKey', '=', input.key)
        .executeTakeFirstOrThrow()
      return { id: first.id, replayed: true }
    }
    await this.#schedule(tx, id, 0, now)
    return { id, replayed: false }
  }

  /** A transfer as handlers see it (for callers' reads). */
  async get(ex: Executor, id: string): Promise<OutgoingView | undefined> {
    const row = await this.load(ex, id)
    return row && this.#view(row)
  }

  async load(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('outgoingTransfers').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  }

  #view(r: Row): OutgoingView {
    return {
      id: r.id,
      purpose: r.purpose,
      referenceId: r.referenceId,
      coin: r.coin,
      from: r.fromAddress,
      to: r.toAddress,
      amount: BigInt(r.amount),
      status: r.status,
      failures: r.failures,
      errors: r.errors ?? [],
      nonce: r.nonce === null ? null : Number(r.nonce),
      txHash: r.txHash,
      meta: r.meta ?? {},
    }
  }

  #signer(name: 'gasWallet' | 'treasury'): ChainSigner {
    return name === 'gasWallet' ? this.deps.chain.gasWallet : this.deps.chain.treasury
  }

  /** Queues the next run of a transfer; the sequence number keeps each run's dedupe key unique. */
  async #schedule(ex: Executor, id: string, seq: number, runAt: Date) {
    await this.deps.jobs.enqueue(
      ex,
      OUTGOING_JOB,
      { id },
      { runAt, dedupeKey: `${OUTGOING_JOB}:${id}:${seq}` },
    )
  }

  async #defer(id: string, delayMs: number) {
    await this.deps.db.transaction().execute(async (tx) => {
      const row = await this.load(tx, id, true)
      if (!row || FINAL.includes(row.status)) return
      const seq = row.wakeSeq + 1
      await tx
        .updateTable('outgoingTransfers')
        .set({ wakeSeq: seq, updatedAt: this.deps.clock.now() })
        .where('id', '=', id)
        .execute()
      await this.#schedule(tx, id, seq, new Date(this.deps.clock.now().getTime() + delayMs))
    })
  }

  // ---- the job --------------------------------------------------------------------------------

  /** One run of a transfer's job: advances it as far as it can go now. */
  async run(id: string): Promise<void> {
    const row = await this.load(this.deps.db, id)
    if (!row || FINAL.includes(row.status)) return
    try {
      await this.#advance(row)
    } catch (err) {
      if (err instanceof SimulatedCrash) throw err
      await this.#attemptFailed(id, err)
    }
  }

  async #crashPoint(at: CrashPoint, id: string) {
    if (this.testHook) await this.testHook(at, id)
  }

  async #advance(first: Row) {
    let row = first
    if (row.status === 'queued') {
      if (!row.startedAt) await this.#markStarted(row.id)
      const prepared = await this.#prepare(row)
      if (row.fromKind !== 'platform') {
        const reserved = await this.#reserveGas(row, prepared.maxFee)
        if (!reserved) {
          await this.#defer(row.id, this.options.gasWaitMs)
          return
        }
      }
      await this.#crashPoint('before-sign', row.id)
      await this.#sign(row.id, prepared)
      await this.#crashPoint('after-sign', row.id)
      row = (await this.load(this.deps.db, row.id))!
      if (FINAL.includes(row.status)) return
    }
    // signed or sent: the stored transaction is the only one this transfer will ever have.
    const hash = row.txHash as Hash
    const { chain } = this.deps
    let receipt = await chain.getReceipt(hash)
    if (!receipt) {
      try {
        await chain.broadcast(row.raw as Hex)
      } catch (err) {
        const e = toChainError(err, 'broadcast')
        if (e.code === 'NONCE_TOO_LOW') {
          // The nonce went to another transaction; ours can never be mined unless it already was.
          receipt = await chain.getReceipt(hash)
          if (!receipt)
            throw new PermanentFailure('NONCE_TOO_LOW', 'the nonce was used by another transaction')
        } else throw e
      }
      if (row.status === 'signed')
        await this.deps.db
          .updateTable('outgoingTransfers')
          .set({ status: 'sent', broadcastAt: this.deps.clock.now(), updatedAt: this.deps.clock.now() })
          .where('id', '=', row.id)
          .where('status', '=', 'signed')
          .execute()
      await this.#crashPoint('after-broadcast', row.id)
    }
    receipt ??= await chain.waitForReceipt(hash, {
      timeoutMs: this.options.receiptTimeoutMs,
      pollMs: this.options.receiptPollMs,
    })
    await this.#crashPoint('after-receipt', row.id)
    await this.#settleWithReceipt(row.id, receipt)
  }

  async #markStarted(id: string) {
    await this.deps.db.transaction().execute(async (tx) => {
      const row = await this.load(tx, id, true)
      if (!row || row.startedAt || FINAL.includes(row.status)) return
      await tx
        .updateTable('outgoingTransfers')
        .set({ startedAt: this.deps.clock.now(), updatedAt: this.deps.clock.now() })
        .where('id', '=', id)
        .execute()
      await this.#handlers.get(row.purpose)?.processing?.(tx, this.#view(row))
    })
  }

  /** Fees, gas limit and a simulation of the transfer (network only, nothing written). */
  async #prepare(row: Row): Promise<Prepared> {
    const { chain } = this.deps
    const coin = chain.coin(row.coin)
    const amount = BigInt(row.amount)
    const fees = await chain.estimateFees()
    let gas: bigint
    if (coin.isToken) {
      gas = await chain.estimateTransferGas(coin.reference, row.fromAddress, row.toAddress, amount)
    } else {
      gas = NATIVE_GAS
      // A contract recipient may need more than 21000 gas, or refuse the value: simulate it so a
      // refusal costs no gas.
      const code = await chain.client.getCode({ address: getAddress(row.toAddress) }).catch((err) => {
        throw toChainError(err, 'get code')
      })
      if (code && code !== '0x') {
        try {
          const estimate = await chain.client.estimateGas({
            account: getAddress(row.fromAddress),
            to: getAddress(row.toAddress),
            value: amount,
          })
          gas = (estimate * 12n) / 10n
        } catch (err) {
          const e = toChainError(err, 'estimate gas')
          if (e.code === 'UNAVAILABLE') throw e
          throw new ChainError('REJECTED', 'estimate gas: the recipient contract refuses the transfer', false)
        }
      }
    }
    const perGas = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
    return { fees, gas, maxFee: gas * perGas }
  }

  /** Account ids of the platform's gas at a sending address: spendable, and reserved. */
  async #gasAccounts(ex: Executor, address: string) {
    const native = this.#nativeCoin()
    const { ledger } = this.deps
    return {
      native,
      treasury: await ledger.ensureAccount(ex, 'treasury', address, native),
      reserve: await ledger.ensureAccount(ex, 'withdrawal_hold', `gas:${address}`, native),
    }
  }

  #nativeCoin(): string {
    const native = this.deps.chain.coins.find((c) => !c.isToken)
    if (!native) throw new Error('the chain has no native coin configured')
    return native.reference
  }

  async #lockNonceRow(tx: Tx, address: string) {
    await tx
      .insertInto('outgoingNonces')
      .values({ chainId: this.chainKey, address, nextNonce: 0, updatedAt: this.deps.clock.now() })
      .onConflict((oc) => oc.columns(['chainId', 'address']).doNothing())
      .execute()
    return tx
      .selectFrom('outgoingNonces')
      .select('nextNonce')
      .where('chainId', '=', this.chainKey)
      .where('address', '=', address)
      .forUpdate()
      .executeTakeFirstOrThrow()
  }

  /**
   * Reserves `maxFee` of native coin for this transfer's gas from the platform value at the
   * sending address. When short, asks the gas wallet for a top-up (one open top-up per address)
   * and answers false: the transfer waits for the watcher to credit it.
   */
  async #reserveGas(row: Row, maxFee: bigint): Promise<boolean> {
    const attempt = () =>
      this.deps.db.transaction().execute(async (tx): Promise<'ok' | 'wait' | 'scan' | 'topup-failed'> => {
        const { ledger } = this.deps
        // The address's nonce row serialises gas decisions of one address.
        await this.#lockNonceRow(tx, row.fromAddress)
        const current = await this.load(tx, row.id, true)
        if (current?.status !== 'queued') return 'ok'
        const reserved = BigInt(current.gasReserved)
        if (reserved >= maxFee) return 'ok'
        const need = maxFee - reserved
        const acc = await this.#gasAccounts(tx, row.fromAddress)
        const spendable = (await ledger.account(tx, acc.treasury, { forUpdate: true }))?.balance ?? 0n
        if (spendable >= need) {
          await ledger.transfer(tx, {
            key: `outgoing:${row.id}:gas-reserve:${reserved}`,
            coin: acc.native,
            kind: 'gas.reserve',
            legs: [
              { account: acc.treasury, amount: -need },
              { account: acc.reserve, amount: need },
            ],
          })
          await tx
            .updateTable('outgoingTransfers')
            .set({ gasReserved: maxFee.toString(), updatedAt: this.deps.clock.now() })
            .where('id', '=', row.id)
            .execute()
          return 'ok'
        }
        const topUps = await tx
          .selectFrom('outgoingTransfers')
          .select(['id', 'status', 'txHash'])
          .where('purpose', '=', GAS_TOPUP_PURPOSE)
          .where('toAddress', '=', row.fromAddress)
          .where('chainId', '=', this.chainKey)
          .orderBy('createdAt', 'desc')
          .orderBy('id', 'desc')
          .execute()
        const open = topUps[0]
        if (open && !FINAL.includes(open.status)) return 'wait'
        if (open?.status === 'completed' && open.txHash) {
          const credited = await tx
            .selectFrom('chainEvents')
            .select('txHash')
            .where('chainId', '=', this.chainKey)
            .where('txHash', '=', open.txHash.toLowerCase())
            .where('kind', '=', 'deposit')
            .executeTakeFirst()
          if (!credited) return 'scan'
        }
        await this.enqueue(tx, {
          purpose: GAS_TOPUP_PURPOSE,
          referenceId: row.fromAddress,
          key: `gas-topup:${this.chainKey}:${row.fromAddress}:${topUps.length}`,
          from: { kind: 'platform', signer: 'gasWallet' },
          coin: acc.native,
          to: row.fromAddress,
          amount: need * this.options.topUpFactor,
          creditAccountId: acc.treasury,
          meta: { for: row.id },
        })
        // A failed top-up counts as a failed attempt of the transfer that waits for it.
        return open?.status === 'failed' ? 'topup-failed' : 'wait'
      })
    let result = await attempt()
    if (result === 'scan') {
      // The top-up landed but the watcher has not credited it yet.
      await this.deps.wallets.scanNow()
      result = await attempt()
    }
    if (result === 'topup-failed')
      throw new ChainError(
        'UNAVAILABLE',
        'the gas top-up of the sending address failed; another was requested',
      )
    return result === 'ok'
  }

  /** Takes the next nonce, signs, stores the signed transaction and registers it: one transaction. */
  async #sign(id: string, prepared: Prepared) {
    const { chain, db, clock, wallets } = this.deps
    const row = (await this.load(db, id))!
    // Reconcile with the chain: nonces used outside the platform (after a key export) are skipped.
    const latest = await chain.getNonce(row.fromAddress, 'latest')
    await db.transaction().execute(async (tx) => {
      const current = await this.load(tx, id, true)
      if (current?.status !== 'queued') return
      const nonceRow = await this.#lockNonceRow(tx, row.fromAddress)
      const nonce = Math.max(Number(nonceRow.nextNonce), latest)
      const req = {
        coin: row.coin,
        to: row.toAddress,
        amount: BigInt(row.amount),
        nonce,
        gas: prepared.gas,
        fees: prepared.fees,
      }
      const signed =
        row.fromKind === 'platform'
          ? await this.#signer(row.fromOwnerId as 'gasWallet' | 'treasury').signTransfer(req)
          : await chain.signTransfer(await wallets.privateKey(tx, row.fromAddress), req)
      const now = clock.now()
      await tx
        .updateTable('outgoingNonces')
        .set({ nextNonce: nonce + 1, updatedAt: now })
        .where('chainId', '=', this.chainKey)
        .where('address', '=', row.fromAddress)
        .execute()
      await tx
        .updateTable('outgoingTransfers')
        .set({
          status: 'signed',
          nonce,
          raw: signed.raw,
          txHash: signed.hash.toLowerCase(),
          gasLimit: signed.gas.toString(),
          maxFee: signed.maxFee.toString(),
          signedAt: now,
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute()
      await wallets.registerOutgoing(tx, {
        txHash: signed.hash,
        from: row.fromAddress,
        purpose: row.purpose,
        ...(row.creditAccountId ? { creditAccountId: row.creditAccountId } : {}),
      })
    })
  }

  // ---- failures and settlement ----------------------------------------------------------------

  async #attemptFailed(id: string, err: unknown) {
    const permanent =
      err instanceof PermanentFailure ||
      (err instanceof ChainError && (err.code === 'INVALID_ARGUMENT' || err.code === 'UNKNOWN_COIN'))
    const code =
      err instanceof PermanentFailure ? err.code : err instanceof ChainError ? err.code : 'INTERNAL'
    const message =
      err instanceof ChainError || err instanceof PermanentFailure || err instanceof AppError
        ? err.message
        : 'internal error while sending'
    if (!(err instanceof ChainError || err instanceof PermanentFailure))
      this.deps.log.error({ err, transferId: id }, 'outgoing transfer attempt failed unexpectedly')
    const row = await this.load(this.deps.db, id)
    if (!row || FINAL.includes(row.status)) return
    const failures = row.failures + 1
    const final = permanent || failures >= this.options.maxFailures

    // A signed transaction may still be mined: only the chain can say it never will be.
    let fate: 'unsigned' | 'mined' | 'dead' | 'unknown' = 'unsigned'
    let receipt: TransferReceipt | null = null
    if (row.status !== 'queued' && final) {
      try {
        receipt = await this.deps.chain.getReceipt(row.txHash as Hash)
        if (receipt) fate = 'mined'
        else {
          const latest = await this.deps.chain.getNonce(row.fromAddress, 'latest')
          // Another transaction took the nonce, and ours was not mined (checked again after).
          fate = latest > Number(row.nonce) ? 'dead' : 'unknown'
          if (fate === 'dead') {
            receipt = await this.deps.chain.getReceipt(row.txHash as Hash)
            if (receipt) fate = 'mined'
          }
        }
      } catch {
        fate = 'unknown'
      }
    }
    if (fate === 'mined') return this.#settleWithReceipt(id, receipt!)

    await this.deps.db.transaction().execute(async (tx) => {
      const current = await this.load(tx, id, true)
      if (!current || FINAL.includes(current.status)) return
      // `fate` was judged from a read outside this lock: a concurrent run may have signed (and
      // broadcast) the transfer since. Then it may still land, and only the chain can tell.
      const signedMeanwhile = fate === 'unsigned' && current.status !== 'queued'
      const settleNow = final && !signedMeanwhile && (fate === 'unsigned' || fate === 'dead')
      const now = this.deps.clock.now()
      const seq = current.wakeSeq + 1
      await tx
        .updateTable('outgoingTransfers')
        .set({
          failures,
          errors: sql`errors || ${JSON.stringify([message])}::jsonb`,
          wakeSeq: seq,
          updatedAt: now,
        })
        .where('id', '=', id)
        .execute()
      const view = { ...this.#view(current), failures, errors: [...(current.errors ?? []), message] }
      const handlers = this.#handlers.get(current.purpose)
      await handlers?.attemptFailed?.(tx, view, message)
      if (settleNow) {
        await this.#settleFailure(tx, current, view, {
          code,
          message,
          reason: 'failed',
          receipt: null,
        })
        return
      }
      let delay = Math.min(this.options.baseDelayMs * 2 ** (failures - 1), this.options.maxDelayMs)
      if (signedMeanwhile) delay = this.options.baseDelayMs
      else if (final) {
        // Retries are used up but the signed transaction may still land: keep watching it, and
        // leave the outcome to the chain (re-broadcast, receipt, or its nonce taken).
        delay = this.options.stuckRecheckMs
        this.deps.log.error(
          { transferId: id, txHash: current.txHash, nonce: current.nonce, from: current.fromAddress },
          'outgoing transfer is signed but neither mined nor replaced; it stays open until the chain decides',
        )
      }
      await this.#schedule(tx, id, seq, new Date(now.getTime() + delay))
    })
  }

  /** Full receipt (hash, block, gas, logs) as JSON text. */
  async #receiptText(r: TransferReceipt): Promise<string> {
    try {
      const full = await this.deps.chain.client.getTransactionReceipt({ hash: r.hash })
      return json({
        transactionHash: full.transactionHash,
        blockNumber: full.blockNumber,
        blockHash: full.blockHash,
        from: full.from,
        to: full.to,
        status: full.status,
        gasUsed: full.gasUsed,
        effectiveGasPrice: full.effectiveGasPrice,
        logs: full.logs.map((l) => ({
          address: l.address,
          topics: l.topics,
          data: l.data,
          logIndex: l.logIndex,
        })),
      })
    } catch {
      return json({
        transactionHash: r.hash,
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
        from: r.from,
        status: r.status,
        gasUsed: r.gasUsed,
        effectiveGasPrice: r.effectiveGasPrice,
      })
    }
  }

  async #settleWithReceipt(id: string, receipt: TransferReceipt) {
    const text = await this.#receiptText(receipt)
    await this.deps.db.transaction().execute(async (tx) => {
      const row = await this.load(tx, id, true)
      if (!row || FINAL.includes(row.status)) return
      const view = this.#view(row)
      await this.#bookGas(tx, row, receipt.fee)
      const handlers = this.#handlers.get(row.purpose)
      const now = this.deps.clock.now()
      if (receipt.status === 'success') {
        if (row.fundingAccountId) {
          const clearing = await this.deps.ledger.ensureAccount(tx, 'chain', this.chainKey, row.coin)
          await this.deps.ledger.transfer(tx, {
            key: `outgoing:${row.id}:value`,
            coin: row.coin,
            kind: `outgoing.${row.purpose}`,
            legs: [
              { account: row.fundingAccountId, amount: -BigInt(row.amount) },
              { account: clearing, amount: BigInt(row.amount) },
            ],
          })
        }
        await tx
          .updateTable('outgoingTransfers')
          .set({ status: 'completed', receipt: text, settledAt: now, updatedAt: now })
          .where('id', '=', id)
          .execute()
        await handlers?.settled(
          tx,
          { ...view, status: 'completed' },
          {
            ok: true,
            txHash: receipt.hash.toLowerCase(),
            receipt,
            responseData: text,
          },
        )
        return
      }
      const message = 'the transaction was mined but reverted'
      await tx
        .updateTable('outgoingTransfers')
        .set({ failures: row.failures + 1, errors: sql`errors || ${JSON.stringify([message])}::jsonb` })
        .where('id', '=', id)
        .execute()
      const failedView = { ...view, failures: row.failures + 1, errors: [...view.errors, message] }
      await handlers?.attemptFailed?.(tx, failedView, message)
      await this.#settleFailure(tx, row, failedView, {
        code: 'REVERTED',
        message: 'the transaction was mined but reverted',
        reason: 'reverted',
        receipt: text,
      })
    })
  }

  /** Books the gas a mined transaction used and returns the rest of its reservation. */
  async #bookGas(tx: Tx, row: Row, used: bigint) {
    const reserved = BigInt(row.gasReserved)
    if (row.fromKind === 'platform' || reserved === 0n) return
    const acc = await this.#gasAccounts(tx, row.fromAddress)
    const spent = used < reserved ? used : reserved
    const clearing = await this.deps.ledger.ensureAccount(tx, 'chain', this.chainKey, acc.native)
    const legs = [{ account: acc.reserve, amount: -reserved }]
    if (spent > 0n) legs.push({ account: clearing, amount: spent })
    if (reserved - spent > 0n) legs.push({ account: acc.treasury, amount: reserved - spent })
    await this.deps.ledger.transfer(tx, {
      key: `outgoing:${row.id}:gas`,
      coin: acc.native,
      kind: 'gas.spent',
      legs,
    })
    if (used > reserved)
      this.deps.log.error({ transferId: row.id, used, reserved }, 'gas used exceeds the reservation')
  }

  async #settleFailure(
    tx: Tx,
    row: Row,
    view: OutgoingView,
    f: { code: string; message: string; reason: 'failed' | 'reverted'; receipt: string | null },
  ) {
    if (f.reason === 'failed') {
      // Nothing was mined: the whole gas reservation goes back.
      await this.#bookGas(tx, row, 0n)
    }
    const errors = view.errors
    const error = {
      error: true,
      status: statusOf(f.code),
      message: f.message,
      data: {
        code: f.code,
        reason: f.reason,
        attempts: view.failures,
        errors,
        ...(f.reason === 'reverted' ? { txHash: row.txHash, receipt: JSON.parse(f.receipt!) } : {}),
      },
    }
    const now = this.deps.clock.now()
    await tx
      .updateTable('outgoingTransfers')
      .set({ status: 'failed', error: json(error), receipt: f.receipt, settledAt: now, updatedAt: now })
      .where('id', '=', row.id)
      .execute()
    await this.#handlers.get(row.purpose)?.settled(
      tx,
      { ...view, status: 'failed' },
      {
        ok: false,
        txHash: f.reason === 'reverted' ? row.txHash : null,
        responseData: json(error),
        message: f.message,
        code: f.code,
      },
    )
  }
}
