// SQL of the payment module: coins, chains and the devnet journal.
import { sql } from 'kysely'
import { notifyAtCommit } from '../../db/ahead.ts'
import type { Db, Executor } from '../../db/index.ts'
import type { ChainSettings } from '../../platform/chain/coins-config.ts'
import type { DevnetJournal, DevnetJournalEntry } from '../../platform/chain/types.ts'
import { newId } from '../../platform/crypto/ids.ts'

export interface CoinUpsert {
  name: string
  symbol: string
  reference: string
  icon: string
  contractAddress: string | null
  decimal: number
  isToken: boolean
  rpcChainId: string
  active: boolean
  order: number
  usdRate: string
}

export const coinColumns = [
  'id',
  'name',
  'symbol',
  'reference',
  'icon',
  'contractAddress',
  'decimal',
  'isToken',
  'rpcChainId',
  'active',
  'displayOrder',
  'usdRate',
  'createdAt',
  'updatedAt',
  'version',
  'addedBy',
] as const

/**
 * Makes the coins table match the configuration: inserts new coins, updates changed ones (the
 * record version and updatedAt move only when something changed) and deactivates coins that are
 * no longer configured, except coins operators added at run time. Ids of existing coins never
 * change.
 */
export async function syncCoins(db: Executor, coins: CoinUpsert[], now: Date): Promise<void> {
  for (const c of coins) {
    await db
      .insertInto('coins')
      .values({
        id: newId(now.getTime()),
        name: c.name,
        symbol: c.symbol,
        reference: c.reference,
        icon: c.icon,
        contractAddress: c.contractAddress,
        decimal: c.decimal,
        isToken: c.isToken,
        rpcChainId: c.rpcChainId,
        active: c.active,
        displayOrder: c.order,
        usdRate: c.usdRate,
        createdAt: now,
        updatedAt: now,
      })
      .onConflict((oc) =>
        oc
          .column('reference')
          .doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            symbol: eb.ref('excluded.symbol'),
            icon: eb.ref('excluded.icon'),
            contractAddress: eb.ref('excluded.contractAddress'),
            decimal: eb.ref('excluded.decimal'),
            isToken: eb.ref('excluded.isToken'),
            rpcChainId: eb.ref('excluded.rpcChainId'),
            active: eb.ref('excluded.active'),
            displayOrder: eb.ref('excluded.displayOrder'),
            usdRate: eb.ref('excluded.usdRate'),
            addedBy: null,
            updatedAt: eb.ref('excluded.updatedAt'),
            version: sql<number>`coins.version + 1`,
          }))
          // A coin an operator added and the configuration now names is the configuration's.
          .where(
            sql<boolean>`(coins.name, coins.symbol, coins.icon, coins.contract_address, coins."decimal", coins.is_token, coins.rpc_chain_id, coins.active, coins.display_order, coins.usd_rate, coins.added_by)
              is distinct from
              (excluded.name, excluded.symbol, excluded.icon, excluded.contract_address, excluded."decimal", excluded.is_token, excluded.rpc_chain_id, excluded.active, excluded.display_order, excluded.usd_rate, null)`,
          ),
      )
      .execute()
  }
  const configured = coins.map((c) => c.reference)
  await db
    .updateTable('coins')
    .set({ active: false, updatedAt: now, version: sql<number>`version + 1` })
    .where('active', '=', true)
    .where('addedBy', 'is', null)
    .$if(configured.length > 0, (q) => q.where('reference', 'not in', configured))
    .execute()
}

export function listCoins(db: Executor) {
  return db.selectFrom('coins').select(coinColumns).orderBy('displayOrder').orderBy('reference').execute()
}

export type CoinRow = Awaited<ReturnType<typeof listCoins>>[number]

/** Same idea as syncCoins for the single configured chain; any other chain row is deactivated. */
export async function syncChain(db: Executor, chain: ChainSettings, now: Date): Promise<void> {
  await db
    .insertInto('chains')
    .values({
      id: newId(now.getTime()),
      rpcName: chain.rpcName,
      rpcChainId: chain.rpcChainId,
      rpcUrls: JSON.stringify(chain.rpcUrls),
      blockExplorerUrls: JSON.stringify(chain.blockExplorerUrls),
      rpcNativeCurrency: JSON.stringify(chain.rpcNativeCurrency),
      active: true,
      createdAt: now,
      updatedAt: now,
    })
    .onConflict((oc) =>
      oc
        .column('rpcChainId')
        .doUpdateSet((eb) => ({
          rpcName: eb.ref('excluded.rpcName'),
          rpcUrls: eb.ref('excluded.rpcUrls'),
          blockExplorerUrls: eb.ref('excluded.blockExplorerUrls'),
          rpcNativeCurrency: eb.ref('excluded.rpcNativeCurrency'),
          active: true,
          updatedAt: eb.ref('excluded.updatedAt'),
          version: sql<number>`chains.version + 1`,
        }))
        .where(
          sql<boolean>`(chains.rpc_name, chains.rpc_urls, chains.block_explorer_urls, chains.rpc_native_currency, chains.active)
            is distinct from
            (excluded.rpc_name, excluded.rpc_urls, excluded.block_explorer_urls, excluded.rpc_native_currency, true)`,
        ),
    )
    .execute()
  await db
    .updateTable('chains')
    .set({ active: false, updatedAt: now, version: sql<number>`version + 1` })
    .where('active', '=', true)
    .where('rpcChainId', '!=', chain.rpcChainId)
    .execute()
}

export function getChain(db: Executor, rpcChainId: string) {
  return db.selectFrom('chains').selectAll().where('rpcChainId', '=', rpcChainId).executeTakeFirstOrThrow()
}

/** The devnet journal kept in the database, next to the ledger it must agree with. */
export function dbJournal(db: Db): DevnetJournal {
  return {
    async load() {
      const rows = await db.selectFrom('devnetJournal').select(['method', 'params']).orderBy('seq').execute()
      return rows.map((r) => ({ method: r.method, params: r.params }))
    },
    async append(entry) {
      await db
        .insertInto('devnetJournal')
        .values({ method: entry.method, params: JSON.stringify(entry.params) })
        .execute()
    },
  }
}

/** Replaces the whole devnet journal (a compaction), inside the caller's transaction. */
export async function replaceJournal(tx: Executor, entries: DevnetJournalEntry[]): Promise<void> {
  await tx.deleteFrom('devnetJournal').execute()
  for (let i = 0; i < entries.length; i += 500)
    await tx
      .insertInto('devnetJournal')
      .values(entries.slice(i, i + 500).map((e) => ({ method: e.method, params: JSON.stringify(e.params) })))
      .execute()
}

/** The channel on which a change of coin settings is announced to every API process. */
export const COINS_CHANNEL = 'coins_changed'

export function listCoinSettings(db: Executor) {
  return db.selectFrom('coinSettings').selectAll().execute()
}

/** Writes an operator's settings of a coin and announces them (delivered at commit). */
export async function saveCoinSetting(
  tx: Executor,
  row: {
    reference: string
    active?: boolean | null
    usdRate?: string | null
    updatedBy: string
    updatedAt: Date
  },
) {
  const set = {
    ...(row.active === undefined ? {} : { active: row.active }),
    ...(row.usdRate === undefined ? {} : { usdRate: row.usdRate }),
    updatedBy: row.updatedBy,
    updatedAt: row.updatedAt,
  }
  await tx
    .insertInto('coinSettings')
    .values({ reference: row.reference, active: null, usdRate: null, ...set })
    .onConflict((oc) => oc.column('reference').doUpdateSet(set))
    .execute()
  await notifyAtCommit(tx, COINS_CHANNEL, row.reference)
}

/** Coins operators added at run time on the chain, in the order they were added. */
export function listAddedCoins(ex: Executor, rpcChainId: string) {
  return ex
    .selectFrom('coins')
    .select(coinColumns)
    .where('addedBy', 'is not', null)
    .where('rpcChainId', '=', rpcChainId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute()
}

/** Serialises additions of coins on one chain (a row lock on the chain, until `tx` ends). */
export async function lockChainRow(tx: Executor, rpcChainId: string): Promise<void> {
  await tx.selectFrom('chains').select('id').where('rpcChainId', '=', rpcChainId).forUpdate().execute()
}

/**
 * Coins (of any chain, retired ones too) that already use the reference, or on this chain the
 * symbol (any case) or the contract (any case).
 */
export function coinClashes(
  ex: Executor,
  c: { reference: string; symbol: string; contractAddress: string; rpcChainId: string },
) {
  return ex
    .selectFrom('coins')
    .select(['reference', 'symbol', 'contractAddress'])
    .where((eb) =>
      eb.or([
        eb('reference', '=', c.reference),
        eb.and([
          eb('rpcChainId', '=', c.rpcChainId),
          eb.or([
            eb(sql`lower(symbol)`, '=', c.symbol.toLowerCase()),
            eb(sql`lower(contract_address)`, '=', c.contractAddress.toLowerCase()),
          ]),
        ]),
      ]),
    )
    .execute()
}

/** The display order after every coin of the chain. */
export async function nextDisplayOrder(ex: Executor, rpcChainId: string): Promise<number> {
  const row = await ex
    .selectFrom('coins')
    .select((eb) => eb.fn.max('displayOrder').as('max'))
    .where('rpcChainId', '=', rpcChainId)
    .executeTakeFirst()
  return Number(row?.max ?? 0) + 1
}

/** Inserts a coin an operator added and announces it (delivered at commit). */
export async function insertAddedCoin(
  tx: Executor,
  c: Omit<CoinUpsert, 'isToken' | 'contractAddress'> & {
    contractAddress: string
    addedBy: string
    now: Date
  },
): Promise<void> {
  await tx
    .insertInto('coins')
    .values({
      id: newId(c.now.getTime()),
      name: c.name,
      symbol: c.symbol,
      reference: c.reference,
      icon: c.icon,
      contractAddress: c.contractAddress,
      decimal: c.decimal,
      isToken: true,
      rpcChainId: c.rpcChainId,
      active: c.active,
      displayOrder: c.order,
      usdRate: c.usdRate,
      addedBy: c.addedBy,
      createdAt: c.now,
      updatedAt: c.now,
    })
    .execute()
  await notifyAtCommit(tx, COINS_CHANNEL, c.reference)
}
