// What the operator console draws: custody per coin, the queue, transfers in flight and their ages,
// and deposits and withdrawals over time. Read-only; amounts stay in base units (decimal strings)
// with each coin's decimals beside them, so nothing is rounded on the way.
import type { Db } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { type FlowRow, statsRepo } from './stats-repo.ts'

/** Upper bounds (seconds) of the transfer-age buckets; the last bucket is open-ended. */
export const AGE_BUCKETS = [60, 300, 900, 3600, 6 * 3600, 24 * 3600] as const
const AGE_LABELS = ['< 1 min', '1–5 min', '5–15 min', '15–60 min', '1–6 h', '6–24 h', '> 1 day']

export interface StatsDeps {
  db: Db
  clock: Clock
  /** the coins and their decimals (active ones at least) */
  coins: { list(): Promise<{ reference: string; decimals: number; isToken: boolean }[]> }
  /** the gas wallet's address and a balance reader (the chain, read outside any transaction) */
  chain: {
    gasWallet: { address: string }
    /** the platform's signers that hold no custodial key: value sent to them never left */
    treasury?: { address: string }
    balanceOf(address: string, coin: string): Promise<bigint>
  }
}

export class AdminStats {
  constructor(private readonly deps: StatsDeps) {}

  async overview() {
    const now = this.deps.clock.now()
    const db = this.deps.db
    const [held, pending, queue, transfers, coins] = await Promise.all([
      statsRepo.held(db),
      statsRepo.pendingHolds(db),
      statsRepo.queue(db, now),
      statsRepo.transferStates(db, now),
      this.deps.coins.list(),
    ])
    const decimals = new Map(coins.map((c) => [c.reference, c.decimals]))
    const native = coins.find((c) => !c.isToken)
    const gasAddress = this.deps.chain.gasWallet.address.toLowerCase()
    // The chain may be down: the dashboard still shows what the database knows.
    const gasBalance = native
      ? await this.deps.chain.balanceOf(gasAddress, native.reference).catch(() => null)
      : null
    const byCoin = new Map<string, Map<string, bigint>>()
    const add = (coin: string, part: string, v: bigint) => {
      const parts = byCoin.get(coin) ?? new Map<string, bigint>()
      parts.set(part, (parts.get(part) ?? 0n) + v)
      byCoin.set(coin, parts)
    }
    for (const c of coins) add(c.reference, 'user', 0n)
    // Each kind shows what is not reserved; what pending holds reserve (withdrawals and in-app
    // payments on their way out, gas) is one figure of its own, read from the holds.
    for (const row of held) {
      add(row.coin, row.kind, BigInt(row.balance) - BigInt(row.held))
      add(row.coin, 'reserved', BigInt(row.held))
    }
    for (const row of pending) add(row.coin, 'pending', BigInt(row.amount))
    const balances = [...byCoin.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([coin, parts]) => {
        const part = (k: string) => parts.get(k) ?? 0n
        // (what is left in the retired reservation accounts counts as on its way out)
        const outgoing = part('pending') + part('withdrawal_hold')
        const total = part('user') + part('escrow') + outgoing + part('treasury') + part('platform_fee')
        return {
          coin,
          decimals: decimals.get(coin) ?? null,
          users: part('user').toString(),
          escrow: part('escrow').toString(),
          withdrawalHolds: outgoing.toString(),
          treasury: part('treasury').toString(),
          platformFees: part('platform_fee').toString(),
          reserved: part('reserved').toString(),
          // (a debit balance: shown as the positive amount lost)
          platformLoss: (-part('platform_loss')).toString(),
          total: total.toString(),
        }
      })
    return {
      generatedAt: now,
      balances,
      gasWallet: {
        address: gasAddress,
        coin: native?.reference ?? null,
        decimals: native?.decimals ?? null,
        balance: gasBalance === null ? null : gasBalance.toString(),
      },
      queue: queue.map((q) => ({
        ...q,
        oldestReadySeconds:
          q.oldestReadySeconds === null ? null : Math.max(0, Math.round(q.oldestReadySeconds)),
      })),
      transfers: transfers.map((t) => ({ ...t, oldestSeconds: Math.max(0, Math.round(t.oldestSeconds)) })),
    }
  }

  /** Open outgoing transfers (queued, signed, sent) counted per age bucket and state. */
  async transferAges() {
    const now = this.deps.clock.now()
    const rows = await statsRepo.openTransferAges(this.deps.db, now)
    const buckets = AGE_LABELS.map((label, i) => ({
      label,
      fromSeconds: i === 0 ? 0 : AGE_BUCKETS[i - 1]!,
      toSeconds: AGE_BUCKETS[i] ?? null,
      queued: 0,
      signed: 0,
      sent: 0,
      total: 0,
    }))
    for (const r of rows) {
      let i = AGE_BUCKETS.findIndex((limit) => r.ageSeconds < limit)
      if (i === -1) i = AGE_BUCKETS.length
      const b = buckets[i]!
      if (r.status === 'queued' || r.status === 'signed' || r.status === 'sent') b[r.status]++
      b.total++
    }
    return { generatedAt: now, open: rows.length, buckets }
  }

  /**
   * Completed deposits and the value that left for outside addresses (stats-repo.ts says what
   * counts) of one coin per bucket over the last `days` days (hours
   * for up to two days), every bucket present (zero when nothing moved).
   */
  async flows(coin: string, days: number) {
    const now = this.deps.clock.now()
    const unit: 'hour' | 'day' = days <= 2 ? 'hour' : 'day'
    const step = unit === 'hour' ? 3600_000 : 86_400_000
    const end = Math.floor(now.getTime() / step) * step
    const start = end - (unit === 'hour' ? days * 24 - 1 : days - 1) * step
    const known = (await this.deps.coins.list()).find((c) => c.reference === coin)
    if (!known) throw errors.validation(`Unknown coin ${coin}`, [{ path: '/coin', message: 'unknown coin' }])
    const { gasWallet, treasury } = this.deps.chain
    const signers = [gasWallet.address, ...(treasury ? [treasury.address] : [])]
    const rows = await statsRepo.flows(this.deps.db, unit, new Date(start), coin, signers)
    const at = new Map<number, FlowRow[]>()
    for (const r of rows) {
      const t = new Date(r.bucket).getTime()
      at.set(t, [...(at.get(t) ?? []), r])
    }
    const buckets = []
    for (let t = start; t <= end; t += step) {
      const here = at.get(t) ?? []
      const dep = here.find((r) => r.direction === 'deposit')
      const wd = here.find((r) => r.direction === 'withdrawal')
      buckets.push({
        at: new Date(t),
        deposits: dep?.amount ?? '0',
        depositCount: dep?.records ?? 0,
        withdrawals: wd?.amount ?? '0',
        withdrawalCount: wd?.records ?? 0,
      })
    }
    return { coin, decimals: known.decimals, unit, buckets }
  }
}
