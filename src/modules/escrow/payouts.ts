// An escrow's legs (payout, network fee, platform fee, refund, child funding) and in-app payments,
// all sent on chain by the outgoing sender (`services.outgoing`): queued in the caller's database
// transaction, signed and stored before broadcasting, retried with backoff, settled exactly once.
// The legs of an escrow are recorded here, with a user-facing transaction each, and the
// collection's payout statuses follow them.
import { getAddress } from 'viem'
import type { Db, Tx } from '../../db/index.ts'
import type { LegKind } from '../../db/tables/escrow.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { noticeMail } from '../../platform/mail/templates.ts'
import type { CollectionService, PayoutKind } from '../collections/service.ts'
import type { OutgoingSender } from '../settlement/outgoing/sender.ts'
import type { OutgoingView, Settlement } from '../settlement/outgoing/types.ts'
import type { TransactionService } from '../transactions/service.ts'
import type { Ledger } from '../wallet/ledger.ts'
import { unitsToDecimal } from './quote.ts'
import { escrowRepo } from './repo.ts'

export const LEG_PURPOSE = 'escrow.leg'
export const PAY_PURPOSE = 'escrow.pay'

const PAYOUT_KINDS: Partial<Record<LegKind, PayoutKind>> = {
  payout: 'payout',
  fee: 'fee',
  platformFee: 'platformFee',
}

type EscrowRow = NonNullable<Awaited<ReturnType<typeof escrowRepo.get>>>
type LegRow = NonNullable<Awaited<ReturnType<typeof escrowRepo.getLeg>>>
export interface PlannedLeg {
  kind: LegKind
  to: string
  amount: bigint
}

export class EscrowPayouts {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      chain: ChainAdapter
      ledger: Ledger
      transactions: TransactionService
      collections: CollectionService
      outgoing: OutgoingSender
      jobs: JobQueue
    },
  ) {
    deps.outgoing.on(LEG_PURPOSE, {
      processing: (tx, t) => this.#processing(tx, t),
      attemptFailed: (tx, t, message) => this.#attemptFailed(tx, t, message),
      settled: (tx, t, outcome) => this.#settled(tx, t, outcome),
    })
    deps.outgoing.on(PAY_PURPOSE, { settled: (tx, t, outcome) => this.#paySettled(tx, t, outcome) })
  }

  #describe(escrow: EscrowRow, kind: LegKind, amount: bigint, to: string) {
    const coin = this.deps.chain.coin(escrow.coin)
    const text = unitsToDecimal(amount, coin.decimals)
    const base = {
      coin: escrow.coin,
      amount,
      method: kind === 'refund' ? 'refund' : kind === 'fund' ? 'transfer' : 'payout',
      status: 'pending' as const,
      txInfo: {
        senderAddress: getAddress(escrow.address),
        receiverAddress: getAddress(to),
        asset: coin.symbol,
        amount: text,
      },
    }
    switch (kind) {
      case 'payout':
        if (!escrow.receiverId) throw new Error('an escrow payout needs a receiver')
        return {
          ...base,
          ownerId: escrow.receiverId,
          type: 'deposit' as const,
          description: `Escrow payout of ${text} ${coin.symbol}`,
        }
      case 'refund':
        return {
          ...base,
          ownerId: escrow.payerId,
          type: 'deposit' as const,
          description: `Escrow refund of ${text} ${coin.symbol}`,
        }
      case 'fee':
        return {
          ...base,
          ownerId: escrow.payerId,
          type: 'withdrawal' as const,
          isFee: true,
          description: `Escrow network fee of ${text} ${coin.symbol}`,
        }
      case 'platformFee':
        return {
          ...base,
          ownerId: escrow.payerId,
          type: 'withdrawal' as const,
          isPlatformFee: true,
          description: `Escrow platform fee of ${text} ${coin.symbol}`,
        }
      case 'fund':
        return {
          ...base,
          ownerId: escrow.payerId,
          type: 'withdrawal' as const,
          description: `Funding of a child escrow: ${text} ${coin.symbol}`,
        }
    }
  }

  async #enqueueLeg(
    tx: Tx,
    escrow: EscrowRow,
    leg: { id: string; amount: bigint; to: string },
    attempt: number,
  ) {
    const funding = await this.deps.ledger.ensureAccount(tx, 'escrow', escrow.id, escrow.coin)
    const { id } = await this.deps.outgoing.enqueue(tx, {
      purpose: LEG_PURPOSE,
      referenceId: leg.id,
      key: `escrow-leg:${leg.id}:${attempt}`,
      from: { kind: 'escrow', ownerId: escrow.id },
      coin: escrow.coin,
      to: leg.to,
      amount: leg.amount,
      fundingAccountId: funding,
    })
    return id
  }

  /** Queues legs (amounts ≤ 0 are skipped) with a pending transaction each. `rate`: fetched before
   * `tx` (null when none could be had: the records then store none). */
  async queue(tx: Tx, escrow: EscrowRow, legs: PlannedLeg[], rate: string | null) {
    const now = this.deps.clock.now()
    let seq = await escrowRepo.nextSeq(tx, escrow.id)
    for (const l of legs) {
      if (l.amount <= 0n) continue
      const id = newId()
      const to = l.to.toLowerCase()
      const { id: transactionId } = await this.deps.transactions.record(tx, {
        ...this.#describe(escrow, l.kind, l.amount, to),
        rate,
      })
      await escrowRepo.insertLeg(
        tx,
        { id, escrowId: escrow.id, kind: l.kind, seq: seq++, toAddress: to, amount: l.amount },
        now,
      )
      const outgoingId = await this.#enqueueLeg(tx, escrow, { id, amount: l.amount, to }, 1)
      await escrowRepo.updateLeg(tx, id, { outgoingId, transactionId, attempt: 1 }, now)
      const payout = PAYOUT_KINDS[l.kind]
      if (payout)
        await this.deps.collections.recordPayout(tx, escrow.collectionId, payout, 'awaiting', transactionId)
    }
  }

  /** Sends again the legs that failed for good; returns how many. */
  async retryFailed(tx: Tx, escrow: EscrowRow): Promise<number> {
    const now = this.deps.clock.now()
    const failed = (await escrowRepo.legs(tx, escrow.id)).filter((l) => l.status === 'failed')
    for (const leg of failed) {
      const attempt = leg.attempt + 1
      const outgoingId = await this.#enqueueLeg(
        tx,
        escrow,
        { id: leg.id, amount: BigInt(leg.amount), to: leg.toAddress },
        attempt,
      )
      await escrowRepo.updateLeg(
        tx,
        leg.id,
        { outgoingId, attempt, status: 'awaiting', lastError: null },
        now,
      )
      if (leg.transactionId) await this.deps.transactions.update(tx, leg.transactionId, { status: 'pending' })
      const payout = PAYOUT_KINDS[leg.kind]
      if (payout) await this.deps.collections.recordPayout(tx, escrow.collectionId, payout, 'awaiting')
    }
    return failed.length
  }

  /** The leg a transfer belongs to, only while that transfer is the leg's current one. */
  async #leg(tx: Tx, t: OutgoingView): Promise<{ leg: LegRow; escrow: EscrowRow } | undefined> {
    const leg = await escrowRepo.getLeg(tx, t.referenceId, true)
    if (!leg || leg.outgoingId !== t.id) return undefined
    const escrow = (await escrowRepo.get(tx, leg.escrowId))!
    return { leg, escrow }
  }

  async #processing(tx: Tx, t: OutgoingView) {
    const found = await this.#leg(tx, t)
    if (!found) return
    await escrowRepo.updateLeg(tx, found.leg.id, { status: 'processing' }, this.deps.clock.now())
    const payout = PAYOUT_KINDS[found.leg.kind]
    if (payout) await this.deps.collections.recordPayout(tx, found.escrow.collectionId, payout, 'processing')
  }

  /** Each failed attempt counts on the collection (failed*Count); the status shows `failed`
   * until a retry succeeds. */
  async #attemptFailed(tx: Tx, t: OutgoingView, message: string) {
    const found = await this.#leg(tx, t)
    if (!found) return
    await escrowRepo.updateLeg(
      tx,
      found.leg.id,
      { failures: found.leg.failures + 1, lastError: message.slice(0, 500) },
      this.deps.clock.now(),
    )
    const payout = PAYOUT_KINDS[found.leg.kind]
    if (payout) await this.deps.collections.recordPayout(tx, found.escrow.collectionId, payout, 'failed')
  }

  async #settled(tx: Tx, t: OutgoingView, outcome: Settlement) {
    const found = await this.#leg(tx, t)
    if (!found) return
    const { leg, escrow } = found
    const now = this.deps.clock.now()
    const payout = PAYOUT_KINDS[leg.kind]
    if (outcome.ok) {
      await escrowRepo.updateLeg(
        tx,
        leg.id,
        { status: 'completed', txHash: outcome.txHash.toLowerCase() },
        now,
      )
      if (leg.transactionId)
        await this.deps.transactions.update(tx, leg.transactionId, {
          status: 'completed',
          responseData: outcome.responseData,
          txHash: outcome.txHash.toLowerCase(),
        })
      if (payout) await this.deps.collections.recordPayout(tx, escrow.collectionId, payout, 'completed')
      await this.#finishIfDone(tx, escrow.id)
    } else {
      await escrowRepo.updateLeg(
        tx,
        leg.id,
        { status: 'failed', lastError: outcome.message.slice(0, 500) },
        now,
      )
      if (leg.transactionId)
        await this.deps.transactions.update(tx, leg.transactionId, {
          status: 'failed',
          responseData: outcome.responseData,
          ...(outcome.txHash ? { txHash: outcome.txHash.toLowerCase() } : {}),
        })
    }
  }

  /** Every leg completed: a releasing escrow is released, its collection completed, the receiver told. */
  async #finishIfDone(tx: Tx, escrowId: string) {
    const escrow = (await escrowRepo.get(tx, escrowId, true))!
    if (escrow.status !== 'releasing') return
    const legs = await escrowRepo.legs(tx, escrowId)
    if (legs.some((l) => l.status !== 'completed')) return
    const now = this.deps.clock.now()
    await escrowRepo.update(tx, escrow.id, { status: 'released', releasedAt: now }, now)
    await this.deps.collections.markEscrow(tx, escrow.collectionId, {
      state: 'released',
      escrowId: escrow.id,
    })
    const receiver = escrow.receiverId ? await escrowRepo.userLive(tx, escrow.receiverId) : undefined
    if (receiver?.email) {
      const coin = this.deps.chain.coin(escrow.coin)
      const paid = legs.filter((l) => l.kind === 'payout').reduce((s, l) => s + BigInt(l.amount), 0n)
      await this.deps.jobs.enqueue(
        tx,
        'mail.send',
        noticeMail('escrow_released', receiver.email, 'An escrow payment was released to you', [
          receiver.firstName ? `Hello ${receiver.firstName},` : 'Hello,',
          `An escrow payment of ${unitsToDecimal(paid, escrow.decimals)} ${coin.symbol} was released to your wallet.`,
        ]),
      )
    }
  }

  /**
   * In-app payment: `amount` moves from the payer's wallet to a hold in `tx`, then on chain from the
   * payer's address to the escrow address; the deposit watcher credits the escrow when it is
   * mined. A payment that fails for good returns the hold to the wallet.
   */
  async pay(tx: Tx, escrow: EscrowRow, amount: bigint, rate: string | null) {
    const { ledger, transactions, outgoing } = this.deps
    const wallet = await ledger.ensureAccount(tx, 'user', escrow.payerId, escrow.coin)
    const hold = await ledger.ensureAccount(tx, 'withdrawal_hold', escrow.payerId, escrow.coin)
    const id = newId()
    await ledger.transfer(tx, {
      key: `escrow-pay:${id}:hold`,
      coin: escrow.coin,
      legs: [
        { account: wallet, amount: -amount },
        { account: hold, amount },
      ],
      kind: 'escrow.pay.hold',
    })
    const coin = this.deps.chain.coin(escrow.coin)
    const text = unitsToDecimal(amount, coin.decimals)
    const { id: transactionId } = await transactions.record(tx, {
      ownerId: escrow.payerId,
      coin: escrow.coin,
      amount,
      type: 'withdrawal',
      method: 'sent',
      status: 'pending',
      description: `Escrow payment of ${text} ${coin.symbol}`,
      txInfo: {
        senderAddress: '',
        receiverAddress: getAddress(escrow.address),
        asset: coin.symbol,
        amount: text,
      },
      rate,
    })
    const transfer = await outgoing.enqueue(tx, {
      purpose: PAY_PURPOSE,
      referenceId: escrow.id,
      key: `escrow-pay:${id}`,
      from: { kind: 'user', ownerId: escrow.payerId },
      coin: escrow.coin,
      to: escrow.address,
      amount,
      fundingAccountId: hold,
      meta: { transactionId, holdKey: id },
    })
    await escrowRepo.update(tx, escrow.id, { payTransferId: transfer.id }, this.deps.clock.now())
  }

  /**
   * True while the escrow's latest in-app payment has neither failed nor been credited to the
   * escrow. A mined payment counts until the deposit watcher credits it (after CONFIRMATIONS):
   * until then `received` does not show it, and a second payment would send it all again.
   */
  async payUnderWay(tx: Tx, escrow: EscrowRow): Promise<boolean> {
    if (!escrow.payTransferId) return false
    const t = await this.deps.outgoing.get(tx, escrow.payTransferId)
    if (!t || t.status === 'failed') return false
    if (t.status !== 'completed' || !t.txHash) return true
    const credited = await tx
      .selectFrom('chainEvents')
      .select('txHash')
      .where('chainId', '=', String(this.deps.chain.chainId))
      .where('txHash', '=', t.txHash.toLowerCase())
      .where('kind', '=', 'deposit')
      .where('address', '=', escrow.address.toLowerCase())
      .executeTakeFirst()
    return !credited
  }

  async #paySettled(tx: Tx, t: OutgoingView, outcome: Settlement) {
    const transactionId = String(t.meta.transactionId ?? '')
    if (outcome.ok) {
      if (transactionId)
        await this.deps.transactions.update(tx, transactionId, {
          status: 'completed',
          responseData: outcome.responseData,
          txHash: outcome.txHash.toLowerCase(),
        })
      return
    }
    const escrow = await escrowRepo.get(tx, t.referenceId)
    if (!escrow) return
    const { ledger } = this.deps
    const wallet = await ledger.ensureAccount(tx, 'user', escrow.payerId, escrow.coin)
    const hold = await ledger.ensureAccount(tx, 'withdrawal_hold', escrow.payerId, escrow.coin)
    await ledger.transfer(tx, {
      key: `escrow-pay:${String(t.meta.holdKey)}:return`,
      coin: escrow.coin,
      legs: [
        { account: hold, amount: -t.amount },
        { account: wallet, amount: t.amount },
      ],
      kind: 'escrow.pay.return',
    })
    if (transactionId)
      await this.deps.transactions.update(tx, transactionId, {
        status: 'failed',
        responseData: outcome.responseData,
      })
  }
}
