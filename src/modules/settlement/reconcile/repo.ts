// The only SQL of reconciliation: coin halts, stored runs, and the reads the checks need (ledger
// invariants, the ledger accounts at custodial addresses, transfers in flight, parked events).
import { sql } from 'kysely'
import type { Executor, Tx } from '../../../db/index.ts'
import type { HaltReason, ReconciliationRunsTable } from '../../../db/tables/chain.ts'
import type { LedgerAccountKind } from '../../../db/tables/wallet.ts'

/** `where … in (…)` lists are sent in chunks of this size */
const CHUNK = 1000

export interface HaltRow {
  id: string
  coin: string
  reason: HaltReason
  details: Record<string, unknown>
  haltedBy: string
  haltedAt: Date
}

export interface CoinResultRow {
  coin: string
  ledgerTotal: bigint
  chainTotal: bigint
  drift: bigint
  addressesChecked: number
  addressesSkipped: number
  mismatches: unknown[]
}

const haltColumns = ['id', 'coin', 'reason', 'details', 'haltedBy', 'haltedAt'] as const

export const reconcileRepo = {
  // ---- halts -------------------------------------------------------------------------------

  openHalts(ex: Executor): Promise<HaltRow[]> {
    return ex
      .selectFrom('coinHalts')
      .select(haltColumns)
      .where('clearedAt', 'is', null)
      .orderBy('haltedAt')
      .execute()
  },

  /** Opens a halt unless the coin has one open; returns the new row, or undefined. */
  async insertHalt(
    ex: Executor,
    row: { id: string; coin: string; reason: HaltReason; details: Record<string, unknown>; haltedBy: string },
    now: Date,
  ): Promise<HaltRow | undefined> {
    return ex
      .insertInto('coinHalts')
      .values({ ...row, details: JSON.stringify(row.details), haltedAt: now })
      .onConflict((oc) => oc.column('coin').where('clearedAt', 'is', null).doNothing())
      .returning(haltColumns)
      .executeTakeFirst()
  },

  /** Clears the coin's open halt; returns it, or undefined when there was none. */
  clearHalt(ex: Executor, coin: string, by: string, reason: string, now: Date): Promise<HaltRow | undefined> {
    return ex
      .updateTable('coinHalts')
      .set({ clearedAt: now, clearedBy: by, clearReason: reason })
      .where('coin', '=', coin)
      .where('clearedAt', 'is', null)
      .returning(haltColumns)
      .executeTakeFirst()
  },

  // ---- runs --------------------------------------------------------------------------------

  async insertRun(
    tx: Tx,
    run: {
      id: string
      chainId: string
      status: ReconciliationRunsTable['status']
      blockNumber: number | null
      violations: unknown[]
      error: string | null
      startedAt: Date
      finishedAt: Date
    },
    results: CoinResultRow[],
  ) {
    await tx
      .insertInto('reconciliationRuns')
      .values({ ...run, violations: JSON.stringify(run.violations) })
      .execute()
    if (results.length === 0) return
    await tx
      .insertInto('reconciliationResults')
      .values(
        results.map((r) => ({
          runId: run.id,
          coin: r.coin,
          ledgerTotal: r.ledgerTotal.toString(),
          chainTotal: r.chainTotal.toString(),
          drift: r.drift.toString(),
          addressesChecked: r.addressesChecked,
          addressesSkipped: r.addressesSkipped,
          mismatches: JSON.stringify(r.mismatches),
        })),
      )
      .execute()
  },

  /** The latest runs, newest first, with their per-coin results. */
  async latestRuns(ex: Executor, limit: number) {
    const runs = await ex
      .selectFrom('reconciliationRuns')
      .selectAll()
      .orderBy('startedAt', 'desc')
      .limit(limit)
      .execute()
    if (runs.length === 0) return []
    const results = await ex
      .selectFrom('reconciliationResults')
      .selectAll()
      .where(
        'runId',
        'in',
        runs.map((r) => r.id),
      )
      .orderBy('coin')
      .execute()
    return runs.map((r) => ({ ...r, results: results.filter((x) => x.runId === r.id) }))
  },

  // ---- ledger invariants --------------------------------------------------------------------

  /** Transfers whose entries do not sum to zero. */
  unbalancedTransfers(ex: Executor) {
    return ex
      .selectFrom('ledgerEntries')
      .select(['transferId', 'coin', (eb) => eb.fn.sum<string>('amount').as('total')])
      .groupBy(['transferId', 'coin'])
      .having((eb) => eb.fn.sum('amount'), '<>', 0)
      .execute()
  },

  /**
   * Accounts that break an invariant, with the sum of their entries: a cached balance that is not
   * that sum, below zero, or a held amount outside 0..balance (ordinary accounts); a cached
   * balance at all, or a sum below zero except the chain's clearing account and the platform's loss
   * account (system accounts, MAY_GO_NEGATIVE).
   */
  accountsNotEntries(ex: Executor, system: readonly LedgerAccountKind[]) {
    return ex
      .selectFrom('ledgerAccounts as a')
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('ledgerEntries')
            .select(['accountId', (e) => e.fn.sum<string>('amount').as('total')])
            .groupBy('accountId')
            .as('e'),
        (j) => j.onRef('e.accountId', '=', 'a.id'),
      )
      .select(['a.id', 'a.kind', 'a.ownerId', 'a.coin', 'a.balance', 'a.held', 'e.total'])
      .where((eb) =>
        eb.or([
          eb.and([
            eb('a.kind', 'not in', system),
            sql<boolean>`(a.balance <> coalesce(e.total, 0) or a.balance < 0 or a.held < 0 or a.held > a.balance)`,
          ]),
          eb.and([
            eb('a.kind', 'in', system),
            sql<boolean>`(a.balance <> 0 or (a.kind not in ('chain', 'platform_loss') and coalesce(e.total, 0) < 0))`,
          ]),
        ]),
      )
      .execute()
  },

  /** Accounts whose cached held amount is not the sum of their pending holds. */
  async heldNotHolds(ex: Executor) {
    const { rows } = await sql<{
      id: string
      kind: LedgerAccountKind
      ownerId: string
      coin: string
      held: string
      pending: string | null
    }>`
      select a.id, a.kind, a.owner_id, a.coin, a.held::text as held, h.pending::text as pending
      from ledger_accounts a
      left join (
        select account_id, sum(amount) as pending from ledger_holds
        where status = 'pending' group by account_id
      ) h on h.account_id = a.id
      where a.held <> coalesce(h.pending, 0)`.execute(ex)
    return rows
  },

  // ---- ledger = chain ------------------------------------------------------------------------

  /** Custodial keys by address order, `limit` after `after` (keyset paging). */
  keysPage(ex: Executor, after: string, limit: number, only?: string[]) {
    let q = ex
      .selectFrom('walletKeys')
      .select(['address', 'ownerKind', 'ownerId'])
      .where('address', '>', after)
      .orderBy('address')
      .limit(limit)
    if (only) q = q.where('address', 'in', only.length > 0 ? only : [''])
    return q.execute()
  },

  /** Accounts of the given (kind, owner) pairs, any coin. */
  async accountsOf(ex: Executor, owners: { kind: LedgerAccountKind; ownerId: string }[]) {
    const byKind = new Map<LedgerAccountKind, Set<string>>()
    for (const o of owners) byKind.set(o.kind, (byKind.get(o.kind) ?? new Set()).add(o.ownerId))
    const out: { id: string; kind: LedgerAccountKind; ownerId: string; coin: string; balance: bigint }[] = []
    for (const [kind, ids] of byKind) {
      const list = [...ids]
      for (let i = 0; i < list.length; i += CHUNK) {
        const rows = await ex
          .selectFrom('ledgerAccounts')
          .select(['id', 'kind', 'ownerId', 'coin', 'balance'])
          .where('kind', '=', kind)
          .where('ownerId', 'in', list.slice(i, i + CHUNK))
          .execute()
        for (const r of rows) out.push({ ...r, balance: BigInt(r.balance) })
      }
    }
    return out
  },

  /**
   * Sending addresses among `addresses` with a transfer whose effect on chain at `block` the
   * ledger cannot show yet: signed or sent (it may be mined already, booked only once settled),
   * or settled with a receipt after `block` (booked, but not on chain at `block`).
   */
  async inFlight(ex: Executor, chainId: string, addresses: string[], block: bigint): Promise<Set<string>> {
    const out = new Set<string>()
    for (let i = 0; i < addresses.length; i += CHUNK) {
      const rows = await ex
        .selectFrom('outgoingTransfers')
        .select('fromAddress')
        .distinct()
        .where('chainId', '=', chainId)
        .where('fromAddress', 'in', addresses.slice(i, i + CHUNK))
        .where((eb) =>
          eb.or([
            eb('status', 'in', ['signed', 'sent']),
            eb.and([
              eb('status', 'in', ['completed', 'failed']),
              eb('receipt', 'is not', null),
              sql<boolean>`(receipt->>'blockNumber')::numeric > ${block.toString()}::numeric`,
            ]),
          ]),
        )
        .execute()
      for (const r of rows) out.add(r.fromAddress)
    }
    return out
  },

  /** (address, coin) pairs among `addresses` with parked chain events (not in the ledger yet). */
  async parked(ex: Executor, chainId: string, addresses: string[]): Promise<Set<string>> {
    const out = new Set<string>()
    for (let i = 0; i < addresses.length; i += CHUNK) {
      const rows = await ex
        .selectFrom('chainEvents')
        .select(['address', 'coin'])
        .distinct()
        .where('chainId', '=', chainId)
        .where('held', 'is not', null)
        .where('address', 'in', addresses.slice(i, i + CHUNK))
        .execute()
      for (const r of rows) out.add(`${r.address}:${r.coin}`)
    }
    return out
  },

  /** The block of the address's last credited deposit in `coin` (null: none yet). */
  async lastDepositBlock(
    ex: Executor,
    chainId: string,
    address: string,
    coin: string,
  ): Promise<bigint | null> {
    const row = await ex
      .selectFrom('chainEvents')
      .select((eb) => eb.fn.max('blockNumber').as('block'))
      .where('chainId', '=', chainId)
      .where('address', '=', address)
      .where('coin', '=', coin)
      .where('kind', '=', 'deposit')
      .where('held', 'is', null)
      .executeTakeFirst()
    return row?.block === null || row?.block === undefined ? null : BigInt(row.block)
  },
}
