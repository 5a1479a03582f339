// The operator console's detail pages: a user with their money and activity, an escrow with its
// legs, a job, a dispute, and the chain's explorer link. Each reads through the owning module's
// operator view; unknown ids are 404 NOT_FOUND naming what was asked for.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type { AccountModeration } from '../account/types.ts'
import type { AuthService } from '../auth/types.ts'
import type { ChatService } from '../chat/types.ts'
import type { EscrowLegOperations } from '../escrow/types.ts'
import type { SettlementLookup } from '../settlement/types.ts'
import type { WalletOperatorView } from '../wallet/types.ts'
import type { WorkOperatorView } from '../work/types.ts'
import type { AdminTransfers } from './transfers.ts'
import { userView } from './users.ts'

/** How many of each of a user's records the user page shows (newest first). */
export const USER_PAGE_ROWS = 10

/** How many of a disputed job's messages the dispute page shows (newest first). */
export const DISPUTE_MESSAGES = 50

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export class AdminDetails {
  constructor(
    private readonly deps: {
      db: Db
      chain: Pick<ChainAdapter, 'coins' | 'info'>
      moderation: AccountModeration
      auth: Pick<AuthService, 'liveSessions'>
      wallet: WalletOperatorView
      settlement: SettlementLookup
      escrow: EscrowLegOperations
      work: WorkOperatorView
      chat: Pick<ChatService, 'collectionMessagesForOperator'>
      transfers: AdminTransfers
    },
  ) {}

  #coin(coin: string) {
    return this.deps.chain.coins.find((c) => c.reference === coin)
  }

  #text(coin: string, amount: string | bigint) {
    const c = this.#coin(coin)
    return c ? `${formatUnits(BigInt(amount), c.decimals)} ${c.symbol}` : `${amount} ${coin}`
  }

  /** The chain and the link to a transaction on its explorer (`chain.blockExplorerUrls[0]`). */
  chain() {
    const { info } = this.deps.chain
    const base = info.blockExplorerUrls[0]?.replace(/\/+$/, '')
    return {
      chainId: info.chainId,
      name: info.name,
      explorerTxUrl: base ? `${base}/tx/{txHash}` : null,
    }
  }

  async user(id: string) {
    const { db, moderation, wallet, settlement, escrow, work, auth } = this.deps
    const u = await moderation.get(db, id)
    if (!u) throw errors.notFound('user')
    const [money, escrows, jobs, sessions] = await Promise.all([
      wallet.ofUser(id),
      escrow.escrowsOf(id, USER_PAGE_ROWS),
      work.jobsOf(id, USER_PAGE_ROWS),
      auth.liveSessions(id, USER_PAGE_ROWS),
    ])
    const deposits = money.address ? await settlement.depositsTo(money.address, USER_PAGE_ROWS) : []
    return {
      user: userView(u),
      custodialAddress: money.address,
      keyExportedAt: money.exportedAt,
      balances: money.balances.map((b) => ({
        coin: b.coin,
        available: b.available,
        amountText: this.#text(b.coin, b.available),
      })),
      deposits: deposits.map((d) => ({
        txHash: d.txHash,
        logIndex: d.logIndex,
        coin: d.coin,
        amount: String(d.amount),
        amountText: this.#text(d.coin, d.amount),
        blockNumber: String(d.blockNumber),
        state: d.transferId ? ('credited' as const) : d.held ? ('parked' as const) : ('recorded' as const),
        transferId: d.transferId,
        createdAt: d.createdAt,
      })),
      escrows: escrows.map((e) => ({
        _id: e.id,
        collectionId: e.collectionId,
        role: e.payerId === id ? ('payer' as const) : ('receiver' as const),
        coin: e.coin,
        amountText: this.#text(e.coin, e.coinEscrowAmount),
        status: e.status,
        createdAt: e.createdAt,
      })),
      jobs: jobs.map((j) => ({
        _id: j.id,
        name: j.name,
        type: j.type,
        status: j.status,
        role: j.creatorId === id ? ('creator' as const) : ('talent' as const),
        createdAt: j.createdAt,
      })),
      sessions: sessions.map((s) => ({
        _id: s.id,
        ip: s.ip,
        userAgent: s.userAgent,
        createdAt: s.createdAt,
      })),
    }
  }

  async escrow(id: string) {
    const e = await this.deps.escrow.escrow(id)
    if (!e) throw errors.notFound('escrow')
    const [legs, emails] = await Promise.all([
      this.deps.transfers.legs({ escrowId: id, page: 1, limit: 100 }),
      this.deps.moderation.emails(this.deps.db, [e.payerId, ...(e.receiverId ? [e.receiverId] : [])]),
    ])
    return {
      _id: e.id,
      collectionId: e.collectionId,
      parentEscrowId: e.parentEscrowId,
      payerId: e.payerId,
      payerEmail: emails.get(e.payerId) ?? null,
      receiverId: e.receiverId,
      receiverEmail: e.receiverId ? (emails.get(e.receiverId) ?? null) : null,
      coin: e.coin,
      address: e.address,
      status: e.status,
      usdCents: String(e.escrowCents),
      amount: String(e.coinEscrowAmount),
      amountText: this.#text(e.coin, e.coinEscrowAmount),
      amountToPay: String(e.amountToPay),
      received: String(e.received),
      receivedText: this.#text(e.coin, e.received),
      releasedPayout: String(e.releasedPayout),
      releasedFee: String(e.releasedFee),
      payTransferId: e.payTransferId,
      expiresAt: e.expiresAt,
      paidAt: e.paidAt,
      releasedAt: e.releasedAt,
      cancelledAt: e.cancelledAt,
      createdAt: e.createdAt,
      legs: legs.rows,
    }
  }

  async job(id: string) {
    const j = await this.deps.work.job(id)
    if (!j) throw errors.notFound('job')
    return this.#jobView(j)
  }

  #jobView(j: NonNullable<Awaited<ReturnType<WorkOperatorView['job']>>>) {
    const r = j.row
    return {
      _id: r.id,
      name: r.name,
      type: r.type,
      status: r.status,
      description: r.description,
      creatorId: r.creatorId,
      receiverId: r.receiverId,
      parentId: r.parentId,
      escrowId: r.escrowId,
      paymentFee: String(r.paymentFee),
      issue: r.issue,
      deliveryNote: r.deliveryNote,
      deliveredAt: iso(r.deliveredAt),
      completedAt: iso(r.completedAt),
      cancelledAt: iso(r.cancelledAt),
      cancellationReason: r.cancellationReason,
      attachments: j.attachments,
      deliveryAttachments: j.deliveryAttachments,
      dispute: j.dispute,
      createdAt: r.createdAt,
    }
  }

  async dispute(id: string) {
    const d = await this.deps.work.dispute(id)
    if (!d) throw errors.notFound('dispute')
    const { raisedBy, decidedBy, proposal } = d.dispute
    const people = [raisedBy, decidedBy, proposal?.proposedBy].filter((p): p is string => !!p)
    const [messages, emails] = await Promise.all([
      this.deps.chat.collectionMessagesForOperator(d.dispute.collection, DISPUTE_MESSAGES),
      this.deps.moderation.emails(this.deps.db, people),
    ])
    const emailOf = (id: string | null | undefined) => (id ? (emails.get(id) ?? null) : null)
    return {
      ...d.dispute,
      raisedByEmail: emailOf(raisedBy),
      decidedByEmail: emailOf(decidedBy),
      proposedByEmail: emailOf(proposal?.proposedBy),
      job: d.job ? this.#jobView(d.job) : null,
      messages,
    }
  }
}
