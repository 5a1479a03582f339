// Unknown platform transfers for operators: transactions a custodial key that was never exported
// signed, which the (restored) database did not know. Listing them with what the transaction says,
// re-attaching one to the withdrawal it was (recreated, or an open one of the copy) so the ledger
// ends exactly as if the withdrawal had been recorded before the loss, in one transaction (the
// lost gas top-ups of its address booked first as the platform's gas there), or
// marking it external (booked as an outside withdrawal once its coins resume). Audited by the caller.
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { PlatformTransferStatus } from '../../db/tables/restore.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { attachMined, type MinedTransaction } from '../settlement/outgoing/attach.ts'
import type { OutgoingSender } from '../settlement/outgoing/sender.ts'
import { findingsRepo, type PlatformTransferRow } from '../settlement/restore/repo.ts'
import { bookParkedGasTopUps } from '../settlement/watcher/parked.ts'
import type { TransactionService } from '../transactions/types.ts'
import { feeOf } from '../withdrawals/module.ts'
import type { WithdrawalService } from '../withdrawals/types.ts'

export interface PlatformTransfer {
  id: string
  chainId: string
  txHash: string
  address: string
  ownerKind: string
  ownerId: string
  coin: string
  amount: string
  to: string | null
  gasCoin: string | null
  gasFee: string
  blockNumber: string
  status: PlatformTransferStatus
  withdrawalId: string | null
  transferId: string | null
  detectedAt: string
  resolvedAt: string | null
  resolvedBy: string | null
  resolveReason: string | null
  /** what a re-attach would record when nothing else is given */
  prefill: { ownerId: string; to: string | null; amount: string; fee: string | null }
}

export interface Reattach {
  /** an open withdrawal of the copy this transaction paid; absent: the withdrawal is recreated */
  withdrawalId?: string | undefined
  /** the withdrawal fee charged for it (base units); absent: the coin's fee */
  fee?: string | undefined
}

type Audit = (tx: Tx, f: PlatformTransfer) => Promise<void>

export class PlatformTransfers {
  constructor(
    private readonly deps: {
      db: Db
      chain: ChainAdapter
      clock: Clock
      log: Logger
      outgoing: OutgoingSender
      withdrawals: Pick<WithdrawalService, 'recreate' | 'openForReattach' | 'openMatching'>
      transactions: TransactionService
    },
  ) {}

  #view = (r: PlatformTransferRow): PlatformTransfer => {
    const coin = this.deps.chain.coins.find((c) => c.reference === r.coin)
    return {
      id: r.id,
      chainId: r.chainId,
      txHash: r.txHash,
      address: r.address,
      ownerKind: r.ownerKind,
      ownerId: r.ownerId,
      coin: r.coin,
      amount: r.amount,
      to: r.toAddress,
      gasCoin: r.gasCoin,
      gasFee: r.gasFee,
      blockNumber: String(r.blockNumber),
      status: r.status,
      withdrawalId: r.withdrawalId,
      transferId: r.transferId,
      detectedAt: r.detectedAt.toISOString(),
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
      resolvedBy: r.resolvedBy,
      resolveReason: r.resolveReason,
      prefill: {
        ownerId: r.ownerId,
        to: r.toAddress,
        amount: r.amount,
        fee: r.ownerKind === 'user' && coin ? feeOf(coin).toString() : null,
      },
    }
  }

  async list(q: { status?: PlatformTransferStatus | undefined; page: number; limit: number }) {
    const { total, rows } = await findingsRepo.list(this.deps.db, q)
    return { total, rows: rows.map(this.#view) }
  }

  async get(id: string): Promise<PlatformTransfer> {
    const row = await findingsRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('unknown platform transfer')
    return this.#view(row)
  }

  async openCount(): Promise<number> {
    return findingsRepo.openCount(this.deps.db)
  }

  /** The finding, locked and still open (404, or 409 when resolved). */
  async #lockOpen(tx: Tx, id: string): Promise<PlatformTransferRow> {
    const row = await findingsRepo.get(tx, id, true)
    if (!row) throw errors.notFound('unknown platform transfer')
    if (row.status !== 'open')
      throw errors.named('PLATFORM_TRANSFER_RESOLVED', `This transaction was ${row.status} already`, {
        status: row.status,
      })
    return row
  }

  /** What the chain says of the transaction: its nonce and receipt (read before any transaction). */
  async #mined(txHash: string): Promise<MinedTransaction> {
    const { chain } = this.deps
    const hash = txHash as `0x${string}`
    const receipt = await chain.getReceipt(hash)
    if (!receipt) throw errors.unavailable('The chain does not answer the transaction’s receipt; try again')
    const block = await chain.getBlock(receipt.blockNumber)
    const sent = block?.transactions.find((t) => t.hash.toLowerCase() === txHash)
    if (!sent) throw errors.unavailable('The chain does not answer the transaction’s block; try again')
    let receiptText: string
    try {
      receiptText = JSON.stringify(await chain.receiptDetails(hash), (_k, v) =>
        typeof v === 'bigint' ? v.toString() : v,
      )
    } catch {
      receiptText = JSON.stringify({ transactionHash: txHash, blockNumber: receipt.blockNumber.toString() })
    }
    return { txHash, nonce: sent.nonce, receipt, receiptText }
  }

  /**
   * Re-attaches the transaction to the withdrawal it paid, in one transaction: the withdrawal (its
   * hold, records and transfer) recreated or the open one taken, the transfer settled with the
   * mined transaction (gas, the hold posted, its report), the parked movements taken out of the
   * parking as accounted for, the finding resolved, and the caller's audit row.
   */
  async reattach(id: string, input: Reattach, by: string, reason: string, audit: Audit) {
    const { db, chain, clock, outgoing, withdrawals, transactions } = this.deps
    const found = await findingsRepo.get(db, id)
    if (!found) throw errors.notFound('unknown platform transfer')
    if (found.status !== 'open')
      throw errors.named('PLATFORM_TRANSFER_RESOLVED', `This transaction was ${found.status} already`, {
        status: found.status,
      })
    if (found.ownerKind !== 'user' || found.toAddress === null || BigInt(found.amount) === 0n)
      throw errors.named(
        'PLATFORM_TRANSFER_NOT_A_WITHDRAWAL',
        'Only value a user address sent can be re-attached as a withdrawal',
      )
    const coin = chain.coin(found.coin)
    let fee = feeOf(coin)
    if (input.fee !== undefined) {
      if (!/^[0-9]{1,40}$/.test(input.fee)) throw errors.field('/fee', 'must be base units (digits)')
      fee = BigInt(input.fee)
    }
    const mined = await this.#mined(found.txHash)
    const rate = (await transactions.rateOf(coin.reference)) ?? '0'
    await transactions.chainRecordId()
    return db.transaction().execute(async (tx) => {
      const f = await this.#lockOpen(tx, id)
      let withdrawalId: string
      let transferId: string
      if (input.withdrawalId) {
        const w = await withdrawals.openForReattach(tx, input.withdrawalId)
        const matches =
          w &&
          w.ownerId === f.ownerId &&
          w.coin === f.coin &&
          w.address.toLowerCase() === f.toAddress &&
          BigInt(w.amount) === BigInt(f.amount) &&
          w.outgoingId !== null
        if (!w || !matches)
          throw errors.named(
            'PLATFORM_TRANSFER_MISMATCH',
            'That withdrawal is not an open withdrawal of this owner, coin, destination and amount',
          )
        withdrawalId = w.id
        transferId = w.outgoingId!
      } else {
        // The copy may hold the very withdrawal the transaction paid, still queued: recreating one
        // beside it would leave that one to be sent (and paid) again.
        const candidates = await withdrawals.openMatching(tx, {
          ownerId: f.ownerId,
          coin: f.coin,
          address: f.toAddress!,
          amount: BigInt(f.amount),
        })
        if (candidates.length > 0)
          throw errors.named(
            'PLATFORM_TRANSFER_MATCHES_OPEN_WITHDRAWAL',
            'An open withdrawal of this owner, coin, destination and amount exists: name it (withdrawalId) so it is settled rather than paid again',
            { withdrawalIds: candidates },
          )
        const made = await withdrawals.recreate(tx, {
          userId: f.ownerId,
          coin,
          amount: BigInt(f.amount),
          fee,
          address: f.toAddress!,
          from: f.address,
          rate,
        })
        withdrawalId = made.withdrawalId
        transferId = made.transferId
      }
      // The lost timeline's gas top-ups of the address are the platform's gas there, which the
      // transaction's gas is taken from: booked so first (parked while the coin is halted).
      const { chain: c, clock: k, log, jobs, ledger } = outgoing.deps
      await bookParkedGasTopUps(tx, { chain: c, clock: k, log, jobs, ledger, transactions }, f.address)
      const { valueTransferId } = await attachMined(outgoing, tx, transferId, mined)
      await findingsRepo.settleParked(tx, f.chainId, f.txHash, f.address, valueTransferId)
      const now = clock.now()
      await findingsRepo.resolve(tx, id, {
        status: 'reattached',
        by,
        reason,
        at: now,
        withdrawalId,
        transferId,
      })
      const done = this.#view((await findingsRepo.get(tx, id))!)
      await audit(tx, done)
      return done
    })
  }

  /** Judged signed outside the platform: its parked movements are booked as an outside withdrawal
   * once its coins resume. */
  async markExternal(id: string, by: string, reason: string, audit: Audit) {
    return this.deps.db.transaction().execute(async (tx) => {
      await this.#lockOpen(tx, id)
      await findingsRepo.resolve(tx, id, { status: 'external', by, reason, at: this.deps.clock.now() })
      const done = this.#view((await findingsRepo.get(tx, id))!)
      await audit(tx, done)
      return done
    })
  }
}
