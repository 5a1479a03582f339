// Read-only aggregates for the operator console's dashboard and plots: what the ledger holds per
// account kind and coin, the job queue, the open outgoing transfers by age, and deposits and
// withdrawals per time bucket. Aggregates only; ages are measured from the `now` given (the
// service's clock, which wrote the timestamps).
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { FEE_VAULT_KIND, FEE_VAULT_OWNER } from '../fees/types.ts'

export interface HeldRow {
  kind: string
  coin: string
  /** base units, a decimal string */
  balance: string
  /** base units reserved by pending holds */
  held: string
  accounts: number
}

export interface QueueRow {
  kind: string
  queued: number
  ready: number
  running: number
  failed: number
  /** seconds the oldest due job has waited, or null */
  oldestReadySeconds: number | null
}

export interface TransferStateRow {
  status: string
  purpose: string
  coin: string
  transfers: number
  oldestSeconds: number
}

export interface OpenTransferAge {
  status: string
  ageSeconds: number
}

export interface FlowRow {
  bucket: Date
  coin: string
  direction: 'deposit' | 'withdrawal'
  amount: string
  records: number
}

// Accounts whose balance is the sum of their entries (no cached balance): ledger/types.ts.
const ENTRY_KINDS = ['platform_fee', 'platform_loss']

export const statsRepo = {
  /** Value reserved by pending ledger holds (withdrawals, in-app payments, gas) per coin. */
  async pendingHolds(ex: Executor): Promise<{ coin: string; amount: string }[]> {
    const { rows } = await sql<{ coin: string; amount: string }>`
      select coin, sum(amount)::text as amount from ledger_holds
      where status = 'pending' group by coin`.execute(ex)
    return rows
  },

  /** Cached balances of the accounts that hold value for someone (the fee account's as `platform_fee`),
   * and the entry sums of the system fee accounts. */
  async held(ex: Executor): Promise<HeldRow[]> {
    // The fee account (the platform's value at its fee address) shows as the platform's fees.
    const cached = await sql<HeldRow>`
      select case when kind = ${FEE_VAULT_KIND} and owner_id = ${FEE_VAULT_OWNER} then 'platform_fee' else kind end
               as kind,
             coin, sum(balance)::text as balance, sum(held)::text as held, count(*)::int as accounts
      from ledger_accounts
      where kind in ('user', 'escrow', 'withdrawal_hold', 'treasury')
      group by 1, coin`.execute(ex)
    const entries = await sql<HeldRow>`
      select a.kind, a.coin, coalesce(sum(e.amount), 0)::text as balance, '0' as held,
             count(distinct a.id)::int as accounts
      from ledger_accounts a left join ledger_entries e on e.account_id = a.id
      where a.kind in (${sql.join(ENTRY_KINDS)})
      group by a.kind, a.coin`.execute(ex)
    return [...cached.rows, ...entries.rows]
  },

  async queue(ex: Executor, now: Date): Promise<QueueRow[]> {
    const { rows } = await sql<QueueRow>`
      select kind,
        count(*) filter (where status = 'queued')::int as queued,
        count(*) filter (where status = 'queued' and run_at <= ${now})::int as ready,
        count(*) filter (where status = 'running')::int as running,
        count(*) filter (where status = 'failed')::int as failed,
        extract(epoch from ${now}::timestamptz - min(run_at) filter (where status = 'queued' and run_at <= ${now}))::float8
          as oldest_ready_seconds
      from jobs group by kind order by kind`.execute(ex)
    return rows
  },

  /** Outgoing transfers by state, purpose and coin, with the oldest one's age (open ones only). */
  async transferStates(ex: Executor, now: Date): Promise<TransferStateRow[]> {
    const { rows } = await sql<TransferStateRow>`
      select status, purpose, coin, count(*)::int as transfers,
        extract(epoch from ${now}::timestamptz - min(created_at))::float8 as oldest_seconds
      from outgoing_transfers
      where status in ('queued', 'signed', 'sent', 'failed')
      group by status, purpose, coin order by status, purpose, coin`.execute(ex)
    return rows
  },

  /** Age of every open transfer (queued, signed, sent): the console buckets them. */
  async openTransferAges(ex: Executor, now: Date): Promise<OpenTransferAge[]> {
    const { rows } = await sql<OpenTransferAge>`
      select status, extract(epoch from ${now}::timestamptz - created_at)::float8 as age_seconds
      from outgoing_transfers
      where status in ('queued', 'signed', 'sent')
      limit 10000`.execute(ex)
    return rows
  },

  /**
   * Completed deposits from the chain and the value that left for outside addresses per `unit`
   * bucket since `from`, per coin. Outflow is what a withdrawal paid to an address that is not the
   * platform's (no custodial key, not a platform signer in `platform`), and what a transfer signed
   * outside the platform paid to such an address; fees apart. In-app escrow payments, escrow legs,
   * fee legs and sweeps, gas top-ups and a withdrawal to another custodial address move value
   * between the platform's own addresses and are not outflow.
   */
  async flows(
    ex: Executor,
    unit: 'hour' | 'day',
    from: Date,
    coin: string,
    platform: readonly string[],
  ): Promise<FlowRow[]> {
    const signers = platform.length
      ? sql`and lower(x.address) not in (${sql.join(platform.map((a) => a.toLowerCase()))})`
      : sql``
    const { rows } = await sql<FlowRow>`
      with moves as (
        select created_at, amount, 'deposit' as direction, null::text as address
        from transactions
        where created_at >= ${from} and coin = ${coin} and status = 'completed' and not is_fee
          and type = 'deposit' and method = 'transfer'
        union all
        select created_at, amount, 'withdrawal', address
        from withdrawals
        where created_at >= ${from} and coin = ${coin} and status = 'completed'
        union all
        select created_at, amount, 'withdrawal', tx_info->>'receiverAddress'
        from transactions
        where created_at >= ${from} and coin = ${coin} and status = 'completed' and not is_fee
          and type = 'withdrawal' and method = 'transfer' and is_external
      )
      select date_trunc(${unit}, x.created_at, 'UTC') as bucket, ${coin}::text as coin, x.direction,
        sum(x.amount)::text as amount, count(*)::int as records
      from moves x
      where x.direction = 'deposit' or (
        x.address is not null and x.address <> ''
        and not exists (select 1 from wallet_keys k where k.address = lower(x.address))
        ${signers})
      group by 1, 3 order by 1`.execute(ex)
    return rows
  },
}
