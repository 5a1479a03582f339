// Money on its way out, for operators: outgoing transfers by state with their age, one transfer's
// attempts, transactions, postings and events, withdrawals and escrow payout legs; and the
// actions, each audited in the transaction that takes it: run a transfer now, replace its pending
// transaction with higher fees, cancel one that was never signed (settlement settles it as failed,
// so its caller is refunded once by its own report job). Withdrawals and legs act on their
// transfer; a leg that failed for good is sent again by escrow.
import type { Db, Tx } from '../../db/index.ts'
import type { OutgoingStatus } from '../../db/tables/withdrawals.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type { EscrowLegOperations, LegFilter } from '../escrow/types.ts'
import { actionsOf } from '../settlement/module.ts'
import type { OutgoingRow, OutgoingSender, TransferFilter } from '../settlement/types.ts'
import type { WithdrawalFilter, WithdrawalOperatorView } from '../withdrawals/types.ts'
import type { AdminActor, AdminAudit } from './audit.ts'

export type TransferAction = 'retry' | 'replace' | 'cancel'

/**
 * What an operator writes when acting on a customer's money: the reason, for the audit log only,
 * and what the customer is told (a cancellation only; optional).
 */
export interface OperatorNote {
  reason: string
  customerMessage?: string | undefined
}

const NO_ACTIONS = { retry: false, replace: false, cancel: false }

export class AdminTransfers {
  constructor(
    private readonly deps: {
      clock: Clock
      chain: Pick<ChainAdapter, 'coins'>
      db: Db
      outgoing: Pick<OutgoingSender, 'operations' | 'statuses'>
      withdrawals: WithdrawalOperatorView
      legs: EscrowLegOperations
      audit: AdminAudit
    },
  ) {}

  #amountText(coin: string, amount: string | bigint) {
    const c = this.deps.chain.coins.find((x) => x.reference === coin)
    return c ? `${formatUnits(BigInt(amount), c.decimals)} ${c.symbol}` : `${amount} ${coin}`
  }

  #age(createdAt: Date) {
    return Math.max(0, Math.floor((this.deps.clock.now().getTime() - createdAt.getTime()) / 1000))
  }

  #view(r: OutgoingRow & { transactionCount?: number | null }, transactions?: number) {
    const errs = r.errors ?? []
    const count = transactions ?? r.transactionCount ?? 0
    return {
      _id: r.id,
      purpose: r.purpose,
      referenceId: r.referenceId,
      coin: r.coin,
      from: r.fromAddress,
      to: r.toAddress,
      amount: String(r.amount),
      amountText: this.#amountText(r.coin, r.amount),
      status: r.status,
      failures: r.failures,
      attempts: errs.length,
      lastError: errs.length ? errs[errs.length - 1]! : null,
      nonce: r.nonce === null ? null : Number(r.nonce),
      txHash: r.txHash,
      replacements: Math.max(0, Number(count) - 1),
      ageSeconds: this.#age(r.createdAt),
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      signedAt: r.signedAt,
      broadcastAt: r.broadcastAt,
      settledAt: r.settledAt,
      waitingForFee: r.waitingForFee ?? null,
      actions: actionsOf(r),
    }
  }

  async transfers(f: TransferFilter) {
    const { total, rows } = await this.deps.outgoing.operations.list(f)
    return { total, rows: rows.map((r) => this.#view(r)) }
  }

  async transfer(id: string) {
    const d = await this.deps.outgoing.operations.detail(id)
    if (!d) throw errors.notFound('transfer')
    const { row, transactions, postings, events } = d
    return {
      ...this.#view(row, transactions.length),
      errors: row.errors ?? [],
      error: row.error,
      meta: row.meta ?? {},
      gasReserved: String(row.gasReserved),
      transactions: transactions.map((t) => ({
        seq: t.seq,
        txHash: t.txHash,
        status: t.status,
        maxFee: String(t.maxFee),
        signedAt: t.signedAt,
      })),
      postings: postings.map((p) => ({
        outcome: p.outcome,
        kind: p.kind,
        key: p.idempotencyKey,
        account: `${p.accountKind}:${p.accountOwnerId}`,
        amount: String(p.amount),
        ledgerTransferId: p.ledgerTransferId,
      })),
      events: events.map((e) => ({ event: e.event, appliedAt: e.appliedAt })),
    }
  }

  /**
   * One action on a transfer, audited as `transfer.<action>` (or as `<targetType>.<action>` when
   * taken through a withdrawal or an escrow leg) in the action's own transaction.
   */
  async act(
    actor: AdminActor,
    id: string,
    action: TransferAction,
    note: OperatorNote,
    via?: { targetType: 'withdrawal' | 'escrow_leg'; targetId: string },
  ) {
    const { reason, customerMessage } = note
    const ops = this.deps.outgoing.operations
    const audit =
      (extra: Record<string, unknown> = {}) =>
      async (tx: Tx, row: OutgoingRow) => {
        await this.deps.audit.record(tx, actor, {
          action: `${via ? via.targetType.replace('_', '-') : 'transfer'}.${action}`,
          targetType: via?.targetType ?? 'transfer',
          targetId: via?.targetId ?? id,
          reason,
          details: {
            transferId: id,
            purpose: row.purpose,
            referenceId: row.referenceId,
            coin: row.coin,
            amount: String(row.amount),
            statusBefore: row.status,
            failures: row.failures,
            ...extra,
          },
        })
      }
    let txHash: string | undefined
    if (action === 'retry') await ops.retry(id, audit())
    else if (action === 'cancel')
      await ops.cancel(id, customerMessage, audit(customerMessage ? { customerMessage } : {}))
    else txHash = (await ops.replace(id, (tx, row) => audit({ replacedTxHash: row.txHash })(tx, row))).txHash
    const transfer = await this.transfer(id)
    return { transfer, ...(txHash ? { txHash } : {}) }
  }

  // --- withdrawals ---------------------------------------------------------------------------

  async withdrawals(f: WithdrawalFilter) {
    const { total, rows } = await this.deps.withdrawals.list(f)
    const statuses = await this.deps.outgoing.statuses(
      this.deps.db,
      rows.flatMap((r) => (r.outgoingId ? [r.outgoingId] : [])),
    )
    return { total, rows: rows.map((w) => this.#withdrawalView(w, statuses)) }
  }

  async withdrawal(id: string) {
    const w = await this.deps.withdrawals.get(id)
    if (!w) throw errors.notFound('withdrawal')
    const statuses = await this.deps.outgoing.statuses(this.deps.db, w.outgoingId ? [w.outgoingId] : [])
    return this.#withdrawalView(w, statuses)
  }

  #withdrawalView(
    w: NonNullable<Awaited<ReturnType<WithdrawalOperatorView['get']>>>,
    statuses: Map<string, OutgoingStatus>,
  ) {
    const transferStatus = w.outgoingId ? (statuses.get(w.outgoingId) ?? null) : null
    const errs = w.errMsg ?? []
    return {
      _id: w.id,
      userId: w.ownerId,
      email: w.email ?? null,
      userName: w.userName ?? null,
      coin: w.coin,
      address: w.address,
      amount: String(w.amount),
      fee: String(w.fee),
      amountText: this.#amountText(w.coin, w.amount),
      status: w.status,
      retryCount: w.retryCount,
      lastError: errs.length ? errs[errs.length - 1]! : null,
      txHash: w.txHash,
      transferId: w.outgoingId,
      transferStatus,
      ageSeconds: this.#age(w.createdAt),
      createdAt: w.createdAt,
      updatedAt: w.updatedAt,
      actions: transferStatus ? actionsOf({ status: transferStatus }) : NO_ACTIONS,
    }
  }

  /** An action on a withdrawal acts on its transfer. A withdrawal that failed for good was
   * refunded with its failure: it is not sent again (the user may request a new one). */
  async actOnWithdrawal(actor: AdminActor, id: string, action: TransferAction, note: OperatorNote) {
    const w = await this.withdrawal(id)
    if (!w.transferId) throw errors.named('TRANSFER_NOT_OPEN', 'The withdrawal has no transfer')
    if (action === 'retry' && w.transferStatus === 'failed')
      throw errors.named(
        'TRANSFER_NOT_OPEN',
        "The withdrawal failed for good and its amount and fee went back to the user's wallet; the user may request it again",
      )
    const { transfer, txHash } = await this.act(actor, w.transferId, action, note, {
      targetType: 'withdrawal',
      targetId: id,
    })
    return { withdrawal: await this.withdrawal(id), transfer, ...(txHash ? { txHash } : {}) }
  }

  // --- escrow legs ---------------------------------------------------------------------------

  async legs(f: LegFilter) {
    const { total, rows } = await this.deps.legs.list(f)
    const statuses = await this.deps.outgoing.statuses(
      this.deps.db,
      rows.flatMap((r) => (r.outgoingId ? [r.outgoingId] : [])),
    )
    return { total, rows: rows.map((l) => this.#legView(l, statuses)) }
  }

  async leg(id: string) {
    const l = await this.deps.legs.get(id)
    if (!l) throw errors.notFound('escrow leg')
    const statuses = await this.deps.outgoing.statuses(this.deps.db, l.outgoingId ? [l.outgoingId] : [])
    return this.#legView(l, statuses)
  }

  #legView(
    l: NonNullable<Awaited<ReturnType<EscrowLegOperations['get']>>>,
    statuses: Map<string, OutgoingStatus>,
  ) {
    const transferStatus = l.outgoingId ? (statuses.get(l.outgoingId) ?? null) : null
    const actions = transferStatus ? actionsOf({ status: transferStatus }) : { ...NO_ACTIONS }
    // A leg that failed for good can be sent again (its value never left the escrow).
    if (l.status === 'failed') actions.retry = true
    return {
      _id: l.id,
      escrowId: l.escrowId,
      collectionId: l.collectionId,
      kind: l.kind,
      seq: l.seq,
      coin: l.coin,
      to: l.toAddress,
      amount: String(l.amount),
      amountText: this.#amountText(l.coin, l.amount),
      status: l.status,
      attempt: l.attempt,
      failures: l.failures,
      lastError: l.lastError,
      txHash: l.txHash,
      transferId: l.outgoingId,
      transferStatus,
      payerId: l.payerId,
      receiverId: l.receiverId,
      receiverEmail: l.receiverEmail ?? null,
      ageSeconds: this.#age(l.createdAt),
      createdAt: l.createdAt,
      updatedAt: l.updatedAt,
      actions,
    }
  }

  /** An action on a leg acts on its transfer; `retry` of a leg that failed for good sends the
   * escrow's failed legs again (escrow's own path). */
  async actOnLeg(actor: AdminActor, id: string, action: TransferAction, note: OperatorNote) {
    const l = await this.leg(id)
    if (action === 'retry' && l.status === 'failed') {
      const resent = await this.deps.legs.resendFailed(id, (tx) =>
        this.deps.audit
          .record(tx, actor, {
            action: 'escrow-leg.retry',
            targetType: 'escrow_leg',
            targetId: id,
            reason: note.reason,
            details: { escrowId: l.escrowId, failedTransferId: l.transferId, resend: true },
          })
          .then(() => undefined),
      )
      const leg = await this.leg(id)
      return { leg, transfer: leg.transferId ? await this.transfer(leg.transferId) : null, resent }
    }
    if (!l.transferId) throw errors.named('TRANSFER_NOT_OPEN', 'The leg has no transfer yet')
    const { transfer, txHash } = await this.act(actor, l.transferId, action, note, {
      targetType: 'escrow_leg',
      targetId: id,
    })
    return { leg: await this.leg(id), transfer, resent: 0, ...(txHash ? { txHash } : {}) }
  }
}
