// What settlement knows of a hash, an address or an id, for the operator's global search and
// detail pages: custodial addresses and their owners, deposits the watcher recorded, and outgoing
// transfers by any of their transactions' hashes or by destination. Reads only; every query is
// served by an index (named beside it).
import type { Db } from '../../db/index.ts'
import { recordedDepositColumns } from './watcher/repo.ts'

const HASH = /^0x[0-9a-f]{64}$/
const ADDRESS = /^0x[0-9a-f]{40}$/

const depositColumns = [...recordedDepositColumns, 'transferId', 'held', 'createdAt'] as const

const transferColumns = [
  'id',
  'purpose',
  'referenceId',
  'coin',
  'fromAddress',
  'toAddress',
  'amount',
  'status',
  'txHash',
  'createdAt',
] as const

export class SettlementLookup {
  constructor(private readonly deps: { db: Db; chainId: number | string }) {}

  /** The owner of a custodial address (wallet_keys_address), or undefined. */
  custodialOwner(address: string) {
    const a = address.toLowerCase()
    if (!ADDRESS.test(a)) return Promise.resolve(undefined)
    return this.deps.db
      .selectFrom('walletKeys')
      .select(['address', 'ownerKind', 'ownerId', 'exportedAt', 'createdAt'])
      .where('address', '=', a)
      .executeTakeFirst()
  }

  /** An owner's custodial address (the unique (owner_kind, owner_id) index), or undefined. */
  custodialAddressOf(ownerKind: 'user' | 'escrow', ownerId: string) {
    return this.deps.db
      .selectFrom('walletKeys')
      .select(['address', 'exportedAt', 'createdAt'])
      .where('ownerKind', '=', ownerKind)
      .where('ownerId', '=', ownerId)
      .executeTakeFirst()
  }

  /** Deposits the watcher recorded in one transaction (chain_events' primary key). */
  depositsOfTx(txHash: string) {
    const h = txHash.toLowerCase()
    if (!HASH.test(h)) return Promise.resolve([])
    return this.deps.db
      .selectFrom('chainEvents')
      .select(depositColumns)
      .where('chainId', '=', String(this.deps.chainId))
      .where('txHash', '=', h)
      .where('kind', '=', 'deposit')
      .orderBy('logIndex')
      .execute()
  }

  /** The newest deposits recorded to a custodial address (chain_events_deposits_by_address). */
  depositsTo(address: string, limit: number) {
    return this.deps.db
      .selectFrom('chainEvents')
      .select(depositColumns)
      .where('address', '=', address.toLowerCase())
      .where('kind', '=', 'deposit')
      .orderBy('blockNumber', 'desc')
      .orderBy('logIndex', 'desc')
      .limit(limit)
      .execute()
  }

  /** Outgoing transfers one of whose transactions (the first or a replacement) has this hash
   * (outgoing_transactions_hash), with the seq of that transaction. */
  transfersByTx(txHash: string) {
    const h = txHash.toLowerCase()
    if (!HASH.test(h)) return Promise.resolve([])
    return this.deps.db
      .selectFrom('outgoingTransactions as t')
      .innerJoin('outgoingTransfers as o', 'o.id', 't.transferId')
      .select(transferColumns.map((c) => `o.${c}` as const))
      .select(['t.seq', 't.status as transactionStatus'])
      .where('t.txHash', '=', h)
      .execute()
  }

  /** The newest outgoing transfers to an address (outgoing_transfers_to). */
  transfersTo(address: string, limit: number) {
    return this.deps.db
      .selectFrom('outgoingTransfers')
      .select(transferColumns)
      .where('toAddress', '=', address.toLowerCase())
      .orderBy('createdAt', 'desc')
      .limit(limit)
      .execute()
  }

  /** One outgoing transfer's summary by id (primary key), or undefined. */
  transfer(id: string) {
    return this.deps.db
      .selectFrom('outgoingTransfers')
      .select(transferColumns)
      .where('id', '=', id)
      .executeTakeFirst()
  }
}

export type TransferSummary = NonNullable<Awaited<ReturnType<SettlementLookup['transfer']>>>
export type RecordedDeposit = Awaited<ReturnType<SettlementLookup['depositsTo']>>[number]
