// The SQL of the fees module: its sweeps (`fee_sweeps`), and the read-model sums the operator's
// fee view shows (what the fee account was credited, withdrawal fees, platform value parked at
// custodial addresses), read from the ledger and withdrawal tables without writing them.
import type { Insertable, Selectable, Updateable } from 'kysely'
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import type { FeeSweepsTable } from '../../db/tables/fees.ts'
import { FEE_VAULT_KIND, FEE_VAULT_OWNER } from './vault.ts'

export type FeeSweepRow = Selectable<FeeSweepsTable>

const sums = (rows: { coin: string; total: string | null }[]) =>
  new Map(rows.map((r) => [r.coin, BigInt(r.total ?? '0')]))

export const feeRepo = {
  async insert(ex: Executor, row: Insertable<FeeSweepsTable>) {
    await ex.insertInto('feeSweeps').values(row).execute()
  },

  get(ex: Executor, id: string, forUpdate = false) {
    let q = ex.selectFrom('feeSweeps').selectAll().where('id', '=', id)
    if (forUpdate) q = q.forUpdate()
    return q.executeTakeFirst()
  },

  byRequestKey(ex: Executor, requestKey: string) {
    return ex.selectFrom('feeSweeps').selectAll().where('requestKey', '=', requestKey).executeTakeFirst()
  },

  async update(ex: Executor, id: string, set: Updateable<FeeSweepsTable>) {
    await ex.updateTable('feeSweeps').set(set).where('id', '=', id).execute()
  },

  /** The latest sweeps of a coin, newest first. */
  recent(ex: Executor, coin: string, limit: number) {
    return ex
      .selectFrom('feeSweeps')
      .selectAll()
      .where('coin', '=', coin)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  },

  /** Confirmed sweeps per coin, in base units. */
  async swept(ex: Executor): Promise<Map<string, bigint>> {
    const { rows } = await sql<{ coin: string; total: string | null }>`
      select coin, sum(amount)::text as total from fee_sweeps
      where status = 'confirmed' group by coin`.execute(ex)
    return sums(rows)
  },

  /** Everything ever credited to the fee accounts, per coin (their entries above zero). */
  async credited(ex: Executor): Promise<Map<string, bigint>> {
    const { rows } = await sql<{ coin: string; total: string | null }>`
      select a.coin, sum(e.amount)::text as total
      from ledger_accounts a join ledger_entries e on e.account_id = a.id
      where a.kind = ${FEE_VAULT_KIND} and a.owner_id = ${FEE_VAULT_OWNER} and e.amount > 0
      group by a.coin`.execute(ex)
    return sums(rows)
  },

  /** Fees of completed withdrawals per coin (they stay at the users' addresses). */
  async withdrawalFees(ex: Executor): Promise<Map<string, bigint>> {
    const { rows } = await sql<{ coin: string; total: string | null }>`
      select coin, sum(fee)::text as total from withdrawals
      where status = 'completed' group by coin`.execute(ex)
    return sums(rows)
  },

  /** Platform value parked at custodial addresses (treasury accounts owned by an address), per
   * coin: what is not reserved by pending holds. */
  async parked(ex: Executor): Promise<Map<string, bigint>> {
    const { rows } = await sql<{ coin: string; total: string | null }>`
      select coin, sum(balance - held)::text as total from ledger_accounts
      where kind = 'treasury' and owner_id like '0x%' group by coin`.execute(ex)
    return sums(rows)
  },
}
