// An escrow's legs (payout, network fee, platform fee, refund, child funding) and in-app payments,
// all sent on chain by the outgoing sender (`services.outgoing`): queued in the caller's database
// transaction, signed and stored before broadcasting, retried with backoff, settled exactly once.
// The legs of an escrow are recorded here, with a user-facing transaction each, and the
// collection's payout statuses follow them.
import { getAddress } from 'viem'
import type { Executor, Tx } from '../../db/index.ts'
import type { LegKind } from '../../db/tables/escrow.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { formatUnits } from '../../platform/money/index.ts'
import { legOutcomes, PAYOUT_KINDS, payOutcomes } from './leg-outcomes.ts'
import type { PayoutKind, PayoutsDeps } from './ports.ts'
import { type EscrowRow, escrowRepo } from './repo.ts'

export const LEG_PURPOSE = 'escrow.leg'
export const PAY_PURPOSE = 'escrow.pay'

type LegRow = Awaited<ReturnType<typeof escrowRepo.legs>>[number]
type PayoutStep = { which: PayoutKind; status: string; transactionId?: string | undefined }

export interface PlannedLeg {
  kind: LegKind
  to: string
  amount: bigint
  /** false: no transaction record of the escrow's payer (a direct deposit's refund to its outside payer) */
  record?: false
}

export class EscrowPayouts {
  constructor(private readonly deps: PayoutsDeps) {
    deps.outgoing.handle(LEG_PURPOSE, legOutcomes(deps))
    deps.outgoing.handle(PAY_PURPOSE, payOutcomes(deps))
  }

  #describe(escrow: EscrowRow, kind: LegKind, amount: bigint, to: string) {
    const coin = this.deps.chain.coin(escrow.coin)
    const text = formatUnits(amount, coin.decimals)
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

  /**
   * The holds of legs' transfers on the escrow's account, one per leg and attempt, all in one
   * statement (all or nothing): settlement posts each to the chain's clearing account when its leg
   * is mined and voids it when the attempt fails for good (the amount is the escrow's again, owed
   * to the leg until it is sent again). 422 INSUFFICIENT_BALANCE when the escrow cannot reserve
   * them. Returns the hold ids in order.
   */
  async #holdLegs(
    tx: Tx,
    escrow: EscrowRow,
    legs: { id: string; amount: bigint; attempt: number }[],
  ): Promise<string[]> {
    const { holds } = await this.deps.ledger.holdMany(tx, {
      kind: 'escrow',
      ownerId: escrow.id,
      coin: escrow.coin,
      holds: legs.map((l) => ({
        key: `escrow-leg:${l.id}:${l.attempt}:hold`,
        amount: l.amount,
        kind: LEG_PURPOSE,
        description: `Escrow leg ${l.id} (attempt ${l.attempt})`,
      })),
    })
    // Each key is new (a fresh leg id, or the attempt after the last): nothing can be replayed.
    if (holds.length !== legs.length || holds.some((h) => h.replayed))
      throw new Error(`escrow ${escrow.id}: leg holds already taken`)
    return holds.map((h) => h.id)
  }

  /** A leg's transfer, funded by its hold (see #holdLegs). */
  async #enqueueLeg(
    tx: Tx,
    escrow: EscrowRow,
    hold: { id: string },
    leg: { id: string; amount: bigint; to: string },
    attempt: number,
  ) {
    const { outgoing } = this.deps
    const { id } = await outgoing.enqueue(tx, {
      purpose: LEG_PURPOSE,
      referenceId: leg.id,
      key: `escrow-leg:${leg.id}:${attempt}`,
      from: { kind: 'escrow', ownerId: escrow.id },
      coin: escrow.coin,
      to: leg.to,
      amount: leg.amount,
      fundingHoldId: hold.id,
    })
    return id
  }

  /**
   * Queues legs (amounts ≤ 0 are skipped) with a pending transaction each, and records the
   * collection's payout statuses in one statement. `rate`: fetched before `tx` (null when none
   * could be had: the records then store none). `opts.legs`: the escrow's legs as read in `tx`
   * (their numbering follows); `opts.emptyDone`: a payout with nothing to send is completed at once.
   */
  async queue(
    tx: Tx,
    escrow: EscrowRow,
    legs: PlannedLeg[],
    rate: string | null,
    opts: { legs?: LegRow[]; emptyDone?: boolean } = {},
  ) {
    const now = this.deps.clock.now()
    const queued = legs.filter((l) => l.amount > 0n)
    const steps: PayoutStep[] = []
    if (queued.length > 0) {
      const known = opts.legs ?? (await escrowRepo.legs(tx, escrow.id))
      let seq = known.reduce((max, l) => Math.max(max, l.seq), 0) + 1
      const planned = queued.map((l) => ({ ...l, id: newId(), to: l.to.toLowerCase(), attempt: 1 }))
      const holds = await this.#holdLegs(tx, escrow, planned)
      const rows: Parameters<typeof escrowRepo.insertLegs>[1] = []
      for (const [i, l] of planned.entries()) {
        const transactionId =
          l.record === false
            ? null
            : (
                await this.deps.transactions.record(tx, {
                  ...this.#describe(escrow, l.kind, l.amount, l.to),
                  rate,
                })
              ).id
        const outgoingId = await this.#enqueueLeg(tx, escrow, { id: holds[i]! }, l, 1)
        rows.push({
          id: l.id,
          escrowId: escrow.id,
          kind: l.kind,
          seq: seq++,
          toAddress: l.to,
          amount: l.amount,
          outgoingId,
          transactionId,
          attempt: 1,
        })
        const payout = PAYOUT_KINDS[l.kind]
        if (payout)
          steps.push({ which: payout, status: 'awaiting', transactionId: transactionId ?? undefined })
      }
      await escrowRepo.insertLegs(tx, rows, now)
    }
    if (opts.emptyDone)
      for (const l of legs) {
        const payout = PAYOUT_KINDS[l.kind]
        if (l.amount === 0n && payout) steps.push({ which: payout, status: 'completed' })
      }
    if (steps.length > 0) await this.deps.collections.recordPayouts(tx, escrow.collectionId, steps)
  }

  /**
   * Sends again the legs that failed for good; returns how many. `legs`: the escrow's legs as
   * read in `tx` (read here when absent).
   */
  async retryFailed(tx: Tx, escrow: EscrowRow, legs?: LegRow[]): Promise<number> {
    const now = this.deps.clock.now()
    const failed = (legs ?? (await escrowRepo.legs(tx, escrow.id))).filter((l) => l.status === 'failed')
    if (failed.length === 0) return 0
    const holds = await this.#holdLegs(
      tx,
      escrow,
      failed.map((l) => ({ id: l.id, amount: BigInt(l.amount), attempt: l.attempt + 1 })),
    )
    const steps: PayoutStep[] = []
    for (const [i, leg] of failed.entries()) {
      const attempt = leg.attempt + 1
      const outgoingId = await this.#enqueueLeg(
        tx,
        escrow,
        { id: holds[i]! },
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
      if (payout) steps.push({ which: payout, status: 'awaiting' })
    }
    if (steps.length > 0) await this.deps.collections.recordPayouts(tx, escrow.collectionId, steps)
    return failed.length
  }

  /**
   * In-app payment: a ledger hold reserves `amount` on the payer's wallet in `tx`, then the value
   * moves on chain from the payer's address to the escrow address; settlement posts the hold (to
   * the chain's clearing account) when it is mined, and the deposit watcher credits the escrow. A
   * payment that fails for good voids the hold: the amount is available in the wallet again.
   */
  async pay(tx: Tx, escrow: EscrowRow, amount: bigint, rate: string | null) {
    const { ledger, transactions, outgoing } = this.deps
    const id = newId()
    // The wallet's account (opened when missing), locked and held in one statement.
    const {
      holds: [hold],
    } = await ledger.holdMany(tx, {
      kind: 'user',
      ownerId: escrow.payerId,
      coin: escrow.coin,
      holds: [
        {
          key: `escrow-pay:${id}:hold`,
          amount,
          kind: 'escrow.pay',
          description: `In-app payment of escrow ${escrow.id}`,
        },
      ],
    })
    if (!hold || hold.replayed) throw new Error(`escrow ${escrow.id}: payment hold already taken`)
    const coin = this.deps.chain.coin(escrow.coin)
    const text = formatUnits(amount, coin.decimals)
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
      // Posted when the payment is mined; voided, with the failure itself, when it fails for good.
      fundingHoldId: hold.id,
      meta: { transactionId, holdKey: id },
    })
    await escrowRepo.update(
      tx,
      escrow.id,
      { payTransferId: transfer.id, payHoldId: hold.id },
      this.deps.clock.now(),
    )
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
    return !(await this.deps.deposits.credited(tx, t.txHash, escrow.address))
  }

  /**
   * What the escrow may still give away (`free`) and what its legs have under way (`open`), read
   * under the lock of its ledger account in `tx`. Open legs are reserved by their pending holds,
   * so the account's available balance (balance − held) already leaves them out; a leg whose
   * transfer failed for good had its hold voided and is owed until it is sent again, so its amount
   * is taken off too. Both change in the transaction that settles the transfer (the hold posted
   * or voided with the transfer's final status), under the account's lock: a leg settling at that
   * moment is seen before or after, never half.
   */
  async free(
    tx: Tx,
    escrow: { id: string; coin: string },
    opts: { account?: string } = {},
  ): Promise<{
    free: bigint
    open: bigint
    legs: LegRow[]
    fundingUnderWay: boolean
    account: string | undefined
  }> {
    const { ledger } = this.deps
    // The account by id when the caller has it.
    const { account } = opts
    const available = account
      ? (await ledger.account(tx, account, { forUpdate: true }))!.available
      : await ledger.balance(tx, 'escrow', escrow.id, escrow.coin, { forUpdate: true })
    const legs = await escrowRepo.legs(tx, escrow.id)
    const { unsettled, statuses } = await this.#unsettled(tx, legs)
    let owed = 0n
    let open = 0n
    for (const l of unsettled) {
      open += BigInt(l.amount)
      if (l.outgoingId && statuses.get(l.outgoingId) === 'failed') owed += BigInt(l.amount)
    }
    return {
      free: available - owed,
      open,
      legs,
      fundingUnderWay: unsettled.some((l) => l.kind === 'fund'),
      account,
    }
  }

  /** True while a child's funding from this escrow (a `fund` leg) has not been mined. */
  async fundingUnderWay(ex: Executor, escrowId: string): Promise<boolean> {
    const { unsettled } = await this.#unsettled(ex, await escrowRepo.legs(ex, escrowId))
    return unsettled.some((l) => l.kind === 'fund')
  }

  /** The legs not settled yet (neither completed nor with a completed transfer), and the statuses. */
  async #unsettled(ex: Executor, all: LegRow[]) {
    const legs = all.filter((l) => l.status !== 'completed')
    const statuses = await this.deps.outgoing.statuses(
      ex,
      legs.flatMap((l) => (l.outgoingId ? [l.outgoingId] : [])),
    )
    return {
      unsettled: legs.filter((l) => !(l.outgoingId && statuses.get(l.outgoingId) === 'completed')),
      statuses,
    }
  }
}
