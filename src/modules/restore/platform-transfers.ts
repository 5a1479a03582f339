// Unknown platform transfers for operators: transactions a custodial key that was never exported
// signed, which the (restored) database did not know. Listing them with what the transaction says
// and the open records of the copy it may have paid, re-attaching one to what it paid so the ledger
// ends exactly as if that had been recorded before the loss, in one transaction (the lost gas
// top-ups of its address booked first as the platform's gas there): a user's withdrawal (recreated,
// or an open one of the copy), an escrow's leg, or a fee sweep (the copy's, or recreated) — or
// booking an escrow's or the fee address's transaction as a loss when nothing matches, or marking it
// external (booked as an outside withdrawal once its coins resume). Audited by the caller.
import type { Logger } from 'pino'
import type { Db, Executor, Tx } from '../../db/index.ts'
import type { PlatformTransferRecordKind, PlatformTransferStatus } from '../../db/tables/restore.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { ColdAddresses } from '../fees/module.ts'
import { attachMined, bookParkedGasTopUps, findingsRepo } from '../settlement/module.ts'
import type { MinedTransaction, OutgoingSender, PlatformTransferRow } from '../settlement/types.ts'
import type { TransactionService } from '../transactions/types.ts'
import { feeOf } from '../withdrawals/module.ts'
import type { WithdrawalService } from '../withdrawals/types.ts'
import { assertLossAllowed, bookLoss } from './losses.ts'
import { type Candidate, type Match, matchesOf, type Named, payerOf, payoutTransfer } from './payouts.ts'

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
  /** what it was re-attached to */
  record: { kind: PlatformTransferRecordKind; id: string } | null
  /** open records of the copy it may have paid (an escrow's legs, the fee address's sweeps) */
  candidates: Candidate[]
  detectedAt: string
  resolvedAt: string | null
  resolvedBy: string | null
  resolveReason: string | null
  /** what a re-attach would record when nothing else is given */
  prefill: {
    ownerId: string
    to: string | null
    amount: string
    fee: string | null
    /** the record a re-attach without one named recreates (null: it settles a candidate) */
    recreates: 'withdrawal' | 'feeSweep' | null
  }
  /** what an operator may do with it now */
  actions: { reattach: boolean; external: boolean; loss: boolean }
}

export interface Reattach extends Named {
  /** an open withdrawal of the copy this transaction paid; absent: the withdrawal is recreated */
  withdrawalId?: string | undefined
  /** the withdrawal fee charged for it (base units); absent: the coin's fee */
  fee?: string | undefined
}

/** The caller's audit row, in the transaction of the change. */
type Audit = (
  tx: Tx,
  f: PlatformTransfer,
  how: { recreated: boolean; valueTransferId?: string | null },
) => Promise<void>

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
      /** the coins' cold addresses (a fee sweep goes there) */
      cold: ColdAddresses
    },
  ) {}

  #view = (r: PlatformTransferRow, match?: Match): PlatformTransfer => {
    const coin = this.deps.chain.coins.find((c) => c.reference === r.coin)
    const payer = payerOf(r)
    const open = r.status === 'open'
    const moved = BigInt(r.amount) > 0n && r.toAddress !== null
    const candidates = match?.candidates ?? []
    const recreates = payer === 'user' ? 'withdrawal' : (match?.recreates ?? null)
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
      record: r.recordKind && r.recordId ? { kind: r.recordKind, id: r.recordId } : null,
      candidates,
      detectedAt: r.detectedAt.toISOString(),
      resolvedAt: r.resolvedAt?.toISOString() ?? null,
      resolvedBy: r.resolvedBy,
      resolveReason: r.resolveReason,
      prefill: {
        ownerId: r.ownerId,
        to: r.toAddress,
        amount: r.amount,
        fee: payer === 'user' && coin ? feeOf(coin).toString() : null,
        recreates,
      },
      actions: {
        reattach: open && moved && (recreates !== null || candidates.length > 0),
        external: open,
        loss:
          open &&
          moved &&
          (payer === 'escrow' || payer === 'fees') &&
          candidates.length === 0 &&
          recreates === null,
      },
    }
  }

  /** The findings' views with the candidates of the open ones (two reads for a page). */
  async #views(ex: Executor, rows: PlatformTransferRow[]) {
    const matches = await matchesOf(ex, this.deps.cold, rows)
    return rows.map((r) => this.#view(r, matches.get(r.id)))
  }

  async list(q: { status?: PlatformTransferStatus | undefined; page: number; limit: number }) {
    const { total, rows } = await findingsRepo.list(this.deps.db, q)
    return { total, rows: await this.#views(this.deps.db, rows) }
  }

  async get(id: string): Promise<PlatformTransfer> {
    const row = await findingsRepo.get(this.deps.db, id)
    if (!row) throw errors.notFound('unknown platform transfer')
    return (await this.#views(this.deps.db, [row]))[0]!
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

  /** The finding, still open (404, or 409 when resolved), read before any transaction. */
  async #open(id: string): Promise<PlatformTransferRow> {
    const found = await findingsRepo.get(this.deps.db, id)
    if (!found) throw errors.notFound('unknown platform transfer')
    if (found.status !== 'open')
      throw errors.named('PLATFORM_TRANSFER_RESOLVED', `This transaction was ${found.status} already`, {
        status: found.status,
      })
    return found
  }

  /**
   * Re-attaches the transaction to what it paid, in one transaction: a user's withdrawal (its
   * hold, records and transfer recreated, or the open one taken), an escrow's open leg or the fee
   * address's sweep (the copy's, or recreated); the transfer settled with the mined transaction
   * (gas, the hold posted, its report to the leg's or sweep's owner as for any transfer), the
   * parked movements taken out of the parking as accounted for, the finding resolved, and the
   * caller's audit row.
   */
  async reattach(id: string, input: Reattach, by: string, reason: string, audit: Audit) {
    const { chain, outgoing, withdrawals, transactions, cold } = this.deps
    const found = await this.#open(id)
    const payer = payerOf(found)
    if (payer === null || found.toAddress === null || BigInt(found.amount) === 0n)
      throw errors.named(
        'PLATFORM_TRANSFER_NOT_A_WITHDRAWAL',
        'Only value a user, escrow or fee address sent can be re-attached (a withdrawal, an escrow leg, a fee sweep)',
      )
    if (payer !== 'user') {
      const mined = await this.#mined(found.txHash)
      await transactions.chainRecordId()
      return this.#settle(id, mined, { by, reason, audit }, (tx, f) =>
        payoutTransfer({ outgoing, cold }, tx, f, input, by, reason),
      )
    }
    if (input.legId || input.sweepId)
      throw errors.named(
        'PLATFORM_TRANSFER_MISMATCH',
        'The transaction left a user’s address: it paid a withdrawal (withdrawalId), not an escrow leg or a sweep',
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
    return this.#settle(id, mined, { by, reason, audit }, async (tx, f) => {
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
        return { record: { kind: 'withdrawal', id: w.id }, transferId: w.outgoingId!, recreated: false }
      }
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
      return {
        record: { kind: 'withdrawal', id: made.withdrawalId },
        transferId: made.transferId,
        recreated: true,
      }
    })
  }

  /** One transaction: the record `target` finds (or recreates) settled with the mined transaction. */
  async #settle(
    id: string,
    mined: MinedTransaction,
    op: { by: string; reason: string; audit: Audit },
    target: (
      tx: Tx,
      f: PlatformTransferRow,
    ) => Promise<{
      record: { kind: PlatformTransferRecordKind; id: string }
      transferId: string
      recreated: boolean
    }>,
  ) {
    const { db, clock, outgoing, transactions } = this.deps
    return db.transaction().execute(async (tx) => {
      const f = await this.#lockOpen(tx, id)
      const { record, transferId, recreated } = await target(tx, f)
      // The lost timeline's gas top-ups of the address are the platform's gas there, which the
      // transaction's gas is taken from: booked so first (parked while the coin is halted).
      const { chain: c, clock: k, log, jobs, ledger } = outgoing.deps
      await bookParkedGasTopUps(tx, { chain: c, clock: k, log, jobs, ledger, transactions }, f.address)
      const { valueTransferId } = await attachMined(outgoing, tx, transferId, mined)
      await findingsRepo.settleParked(tx, f.chainId, f.txHash, f.address, valueTransferId)
      await findingsRepo.ownParkedArrivals(tx, f.chainId, f.txHash)
      await findingsRepo.resolve(tx, id, {
        status: 'reattached',
        by: op.by,
        reason: op.reason,
        at: clock.now(),
        withdrawalId: record.kind === 'withdrawal' ? record.id : null,
        transferId,
        record,
      })
      const done = this.#view((await findingsRepo.get(tx, id))!)
      await op.audit(tx, done, { recreated })
      return done
    })
  }

  /**
   * Books an escrow's or the fee address's transaction that matches no open record as a loss, in
   * one transaction (losses.ts): the value out of the owner's account, the gas out of the platform's
   * gas at the address (its lost top-ups booked first), the parked movements accounted for, the
   * finding `lost`, and the caller's audit row. What the escrow or the fees owe is settled by hand.
   */
  async bookAsLoss(id: string, by: string, reason: string, audit: Audit) {
    const { db, clock, outgoing, transactions } = this.deps
    const found = await this.#open(id)
    assertLossAllowed(found)
    const mined = await this.#mined(found.txHash)
    await transactions.chainRecordId()
    return db.transaction().execute(async (tx) => {
      const f = await this.#lockOpen(tx, id)
      // (under the finding's lock: a leg or sweep that matches it is re-attached, never lost)
      assertLossAllowed(f, (await matchesOf(tx, this.deps.cold, [f])).get(f.id))
      const { chain: c, clock: k, log, jobs, ledger } = outgoing.deps
      await bookParkedGasTopUps(tx, { chain: c, clock: k, log, jobs, ledger, transactions }, f.address)
      const { valueTransferId } = await bookLoss(outgoing, tx, f, mined.nonce)
      await findingsRepo.resolve(tx, id, {
        status: 'lost',
        by,
        reason,
        at: clock.now(),
        transferId: null,
      })
      const done = this.#view((await findingsRepo.get(tx, id))!)
      await audit(tx, done, { recreated: false, valueTransferId })
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
      await audit(tx, done, { recreated: false })
      return done
    })
  }
}
