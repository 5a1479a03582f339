// The operator's global search: one box for a transaction hash, an address, an email, an id or a
// name. The query's shape decides what is looked up, and every lookup goes through the owning
// module's read API on an index (settlement: hashes and custodial addresses; withdrawals: their
// destinations; escrow, work, accounts: ids and emails). Answers typed hits with the console route
// of each one's detail page.
import type { Db } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import { formatUnits } from '../../platform/money/index.ts'
import type { AccountModeration } from '../account/types.ts'
import type { EscrowLegOperations } from '../escrow/types.ts'
import type { SettlementLookup, TransferSummary } from '../settlement/types.ts'
import type { WithdrawalOperatorView } from '../withdrawals/types.ts'
import type { WorkOperatorView } from '../work/types.ts'

export type HitKind =
  | 'user'
  | 'transfer'
  | 'withdrawal'
  | 'deposit'
  | 'escrow'
  | 'escrow_leg'
  | 'job'
  | 'dispute'
export type QueryKind = 'txHash' | 'address' | 'email' | 'id' | 'text'

export interface SearchHit {
  kind: HitKind
  id: string
  label: string
  /** a second line: state, amount, owner */
  detail: string
  /** what matched: `txHash`, `custodialAddress`, `destinationAddress`, `web3Address`, `email`, `id`, `name` */
  match: string
  /** the console route of the hit's detail page */
  link: string
}

/** How many hits of each lookup an answer carries. */
export const SEARCH_LIMIT = 10

export function queryKind(q: string): QueryKind {
  if (/^0x[0-9a-f]{64}$/i.test(q)) return 'txHash'
  if (/^0x[0-9a-f]{40}$/i.test(q)) return 'address'
  if (/^[0-9a-f]{24}$/i.test(q)) return 'id'
  if (q.includes('@')) return 'email'
  return 'text'
}

type UserRow = NonNullable<Awaited<ReturnType<AccountModeration['get']>>>

export class AdminSearch {
  constructor(
    private readonly deps: {
      db: Db
      chain: Pick<ChainAdapter, 'coins'>
      moderation: AccountModeration
      settlement: SettlementLookup
      withdrawals: WithdrawalOperatorView
      escrow: EscrowLegOperations
      work: WorkOperatorView
    },
  ) {}

  #amount(coin: string, amount: string | bigint) {
    const c = this.deps.chain.coins.find((x) => x.reference === coin)
    return c ? `${formatUnits(BigInt(amount), c.decimals)} ${c.symbol}` : `${amount} ${coin}`
  }

  #user(u: UserRow, match: string): SearchHit {
    const name = [u.firstName, u.lastName].filter(Boolean).join(' ')
    return {
      kind: 'user',
      id: u.id,
      label: u.email ?? u.id,
      detail: [name || u.userName, u.role, u.suspendedAt ? 'suspended' : null].filter(Boolean).join(' · '),
      match,
      link: `#/user/${u.id}`,
    }
  }

  #transfer(t: TransferSummary, match: string, extra = ''): SearchHit {
    return {
      kind: 'transfer',
      id: t.id,
      label: `${t.purpose} ${this.#amount(t.coin, t.amount)} → ${t.toAddress}`,
      detail: [t.status, extra].filter(Boolean).join(' · '),
      match,
      link: `#/transfer/${t.id}`,
    }
  }

  /** What a transfer was for, when it is one of a withdrawal or an escrow leg. */
  #caller(t: TransferSummary, match: string): SearchHit | undefined {
    if (t.purpose === 'withdrawal')
      return {
        kind: 'withdrawal',
        id: t.referenceId,
        label: `withdrawal ${this.#amount(t.coin, t.amount)} → ${t.toAddress}`,
        detail: t.status,
        match,
        link: `#/withdrawal/${t.referenceId}`,
      }
    return undefined
  }

  async search(raw: string): Promise<{ q: string; queryKind: QueryKind; hits: SearchHit[] }> {
    const q = raw.trim()
    const kind = queryKind(q)
    const hits = await this.#lookup(q, kind)
    // one hit per object: the first match names it
    const seen = new Set<string>()
    const unique = hits.filter((h) => {
      const key = `${h.kind}:${h.id}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    return { q, queryKind: kind, hits: unique }
  }

  async #lookup(q: string, kind: QueryKind): Promise<SearchHit[]> {
    const { db, moderation, settlement, withdrawals, escrow, work } = this.deps
    if (kind === 'txHash') {
      const [transfers, deposits] = await Promise.all([
        settlement.transfersByTx(q),
        settlement.depositsOfTx(q),
      ])
      const hits: SearchHit[] = []
      for (const t of transfers) {
        hits.push(this.#transfer(t, 'txHash', t.seq > 0 ? `replacement ${t.seq}` : ''))
        const c = this.#caller(t, 'txHash')
        if (c) hits.push(c)
      }
      if (deposits.length) {
        const first = deposits[0]!
        hits.push({
          kind: 'deposit',
          id: first.txHash,
          label: deposits.map((d) => `${this.#amount(d.coin, d.amount)} → ${d.address}`).join(', '),
          detail: `block ${first.blockNumber} · ${first.transferId ? 'credited' : first.held ? 'parked' : 'recorded'}`,
          match: 'txHash',
          link: `#/deposit/${first.txHash}`,
        })
        const owners = [...new Set(deposits.filter((d) => d.ownerKind === 'user').map((d) => d.ownerId))]
        for (const id of owners) {
          const u = await moderation.get(db, id)
          if (u) hits.push(this.#user(u, 'txHash'))
        }
      }
      return hits
    }
    if (kind === 'address') {
      const [owner, web3, toWithdrawals, toTransfers] = await Promise.all([
        settlement.custodialOwner(q),
        moderation.byWeb3Address(db, q),
        withdrawals.toAddress(q, SEARCH_LIMIT),
        settlement.transfersTo(q, SEARCH_LIMIT),
      ])
      const hits: SearchHit[] = []
      if (owner?.ownerKind === 'user') {
        const u = await moderation.get(db, owner.ownerId)
        if (u) hits.push(this.#user(u, 'custodialAddress'))
      } else if (owner?.ownerKind === 'escrow') {
        const e = await escrow.escrow(owner.ownerId)
        if (e) hits.push(this.#escrow(e, 'custodialAddress'))
      }
      if (web3) hits.push(this.#user(web3, 'web3Address'))
      for (const w of toWithdrawals)
        hits.push({
          kind: 'withdrawal',
          id: w.id,
          label: `withdrawal ${this.#amount(w.coin, w.amount)} → ${w.address}`,
          detail: [w.status, w.email].filter(Boolean).join(' · '),
          match: 'destinationAddress',
          link: `#/withdrawal/${w.id}`,
        })
      for (const t of toTransfers) hits.push(this.#transfer(t, 'destinationAddress'))
      return hits
    }
    if (kind === 'email') {
      const u = await moderation.byEmail(db, q)
      if (u) return [this.#user(u, 'email')]
      return this.#byName(q)
    }
    if (kind === 'id') {
      const id = q.toLowerCase()
      const [u, t, w, e, leg, job, dispute] = await Promise.all([
        moderation.get(db, id),
        settlement.transfer(id),
        withdrawals.get(id),
        escrow.escrow(id),
        escrow.get(id),
        work.job(id),
        work.dispute(id),
      ])
      const hits: SearchHit[] = []
      if (u) hits.push(this.#user(u, 'id'))
      if (t) hits.push(this.#transfer(t, 'id'))
      if (w)
        hits.push({
          kind: 'withdrawal',
          id: w.id,
          label: `withdrawal ${this.#amount(w.coin, w.amount)} → ${w.address}`,
          detail: [w.status, w.email].filter(Boolean).join(' · '),
          match: 'id',
          link: `#/withdrawal/${w.id}`,
        })
      if (e) hits.push(this.#escrow(e, 'id'))
      if (leg)
        hits.push({
          kind: 'escrow_leg',
          id: leg.id,
          label: `escrow leg ${leg.kind} #${leg.seq} ${this.#amount(leg.coin, leg.amount)}`,
          detail: `${leg.status} · escrow ${leg.escrowId}`,
          match: 'id',
          link: `#/escrow/${leg.escrowId}`,
        })
      if (job)
        hits.push({
          kind: 'job',
          id: job.row.id,
          label: job.row.name,
          detail: [job.row.type, job.row.status].join(' · '),
          match: 'id',
          link: `#/job/${job.row.id}`,
        })
      if (dispute)
        hits.push({
          kind: 'dispute',
          id: dispute.dispute._id,
          label: `dispute: ${dispute.dispute.reason.slice(0, 80)}`,
          detail: `${dispute.dispute.status} · job ${dispute.dispute.collection}`,
          match: dispute.dispute._id === id ? 'id' : 'jobId',
          link: `#/dispute/${dispute.dispute._id}`,
        })
      return hits
    }
    return this.#byName(q)
  }

  #escrow(e: NonNullable<Awaited<ReturnType<EscrowLegOperations['escrow']>>>, match: string): SearchHit {
    return {
      kind: 'escrow',
      id: e.id,
      label: `escrow ${this.#amount(e.coin, e.coinEscrowAmount)}`,
      detail: `${e.status} · job ${e.collectionId}`,
      match,
      link: `#/escrow/${e.id}`,
    }
  }

  /** Part of an email, a user name or "first last": the accounts list's own search, first page. */
  async #byName(q: string): Promise<SearchHit[]> {
    const { rows } = await this.deps.moderation.search(this.deps.db, { q, page: 1, limit: SEARCH_LIMIT })
    return rows.map((u) => this.#user(u, 'name'))
  }
}
