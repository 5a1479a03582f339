// User-facing transactions: a record per movement a user sees (deposits, withdrawals, payouts,
// fees), written by the module that moves the value in the same database transaction as its
// ledger transfer, and read by #24 and #25.
import { type Write, write } from '../../db/compose.ts'
import type { Db, Executor } from '../../db/index.ts'
import type { TransactionsTable } from '../../db/tables/wallet.ts'
import { errors } from '../../http/errors.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { formatCents, unitsToCents, unitsToNumber } from '../../platform/money/index.ts'
import type { RateSource } from '../../platform/rates/types.ts'
import type { CoinRecord, CoinService } from '../payment/types.ts'
import { type TransactionChange, type TransactionPage, transactionsRepo } from './repo.ts'

export type TransactionType = TransactionsTable['type']
export type TransactionStatus = TransactionsTable['status']

export interface RecordTransaction {
  ownerId: string
  coin: string
  /** base units, non-negative */
  amount: bigint
  type: TransactionType
  /** `transfer`, `sent`, `payout`, `exchange`, ... */
  method: string
  status: TransactionStatus
  description?: string
  /** shown as the JSON text `tx`: sender, receiver, asset, amount */
  txInfo?: { senderAddress: string; receiverAddress: string; asset: string; amount: string } | null
  isFee?: boolean
  isPlatformFee?: boolean
  /** omitted from the record when not given */
  isExternal?: boolean
  /** JSON text of the chain result or error */
  responseData?: string
  transferId?: string | null
  txHash?: string | null
  /** USD per whole coin; null when none could be had (the record then stores no rate and no USD
   * value, never 0). Fetched from the rate source when omitted: fetch it before opening the
   * transaction when the source is a network feed. */
  rate?: string | null
}

export type TransactionUpdate = TransactionChange
export type ListFilter = TransactionPage

type Row = TransactionsTable extends infer T ? { [K in keyof T]: any } : never

/** A rate a price can be computed with: a positive decimal, else null (unavailable). */
export function usableRate(rate: string | null | undefined): string | null {
  if (typeof rate !== 'string' || !/^\d+(\.\d+)?$/.test(rate) || !/[1-9]/.test(rate)) return null
  return rate
}

export class TransactionService {
  #chainRecordId: string | undefined

  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      chain: ChainAdapter
      coins: CoinService
      rates: RateSource
    },
  ) {}

  /** The chain record id shown in `chain`; read once (outside any transaction) and kept. */
  async chainRecordId(): Promise<string> {
    if (this.#chainRecordId === undefined) this.#chainRecordId = (await this.deps.coins.chain())._id
    return this.#chainRecordId
  }

  /**
   * USD rate of a coin as a decimal string, or null when the source cannot price it now. The one
   * rule for an unavailable price: a record stores no rate (null, never 0), and an answer that
   * needs a rate is 503 (`requireRate`).
   */
  async rateOf(coin: string): Promise<string | null> {
    try {
      return usableRate(await this.deps.rates.getRate(coin))
    } catch {
      return null
    }
  }

  /** USD rate of a coin; 503 UNAVAILABLE when the source cannot price it now. */
  async requireRate(coin: string): Promise<string> {
    const rate = await this.rateOf(coin)
    if (rate === null)
      throw errors.unavailable('The USD rate of this coin is unavailable right now; try again shortly')
    return rate
  }

  /** Writes a transaction record in the caller's transaction. */
  async record(ex: Executor, input: RecordTransaction): Promise<{ id: string }> {
    const row = await this.#row(input)
    await transactionsRepo.insert(ex, row)
    return { id: row.id }
  }

  /**
   * `record` written by the caller's own statement (`withWrites`): the new record's id and its
   * insert, not executed.
   */
  async recordWrite(ex: Executor, input: RecordTransaction): Promise<{ id: string; write: Write }> {
    const row = await this.#row(input)
    return { id: row.id, write: write(transactionsRepo.insertStatement(ex, row)) }
  }

  async #row(input: RecordTransaction) {
    if (input.amount < 0n) throw new Error('transaction amounts are non-negative')
    const coin = this.deps.chain.coin(input.coin)
    const rate = input.rate === undefined ? await this.rateOf(input.coin) : input.rate
    const now = this.deps.clock.now()
    return {
      id: newId(),
      ownerId: input.ownerId,
      amount: input.amount.toString(),
      coin: coin.reference,
      chainId: this.#chainRecordId ?? '',
      usdValue: rate === null ? null : formatCents(unitsToCents(input.amount, coin.decimals, rate)),
      rate,
      description: input.description ?? '',
      txInfo: input.txInfo ? JSON.stringify(input.txInfo) : null,
      type: input.type,
      method: input.method,
      status: input.status,
      isFee: input.isFee ?? false,
      isPlatformFee: input.isPlatformFee ?? false,
      isExternal: input.isExternal ?? null,
      responseData: input.responseData ?? '',
      transferId: input.transferId ?? null,
      txHash: input.txHash ?? null,
      createdAt: now,
      updatedAt: now,
    }
  }

  update(ex: Executor, id: string, change: TransactionUpdate): Promise<void> {
    return transactionsRepo.update(ex, id, change, this.deps.clock.now())
  }

  /** #24: the caller's transactions, newest first. */
  async list(ownerId: string, filter: ListFilter) {
    const { total: count, rows } = await transactionsRepo.page(this.deps.db, ownerId, filter)
    const coins = await this.#coinRecords()
    return {
      transactions: rows.map((r) => this.#toApi(r, coins)),
      pages: Math.ceil(count / filter.limit),
      page: filter.page,
      limit: filter.limit,
      total: count,
    }
  }

  /** #25: one of the caller's transactions; someone else's is 404 like an unknown id. */
  async get(ownerId: string, id: string) {
    const row = await transactionsRepo.ownedBy(this.deps.db, ownerId, id)
    if (!row) throw errors.notFound('transaction')
    return this.#toApi(row, await this.#coinRecords())
  }

  async #coinRecords(): Promise<Map<string, CoinRecord>> {
    // Inactive coins keep their record too (a transaction outlives its coin's listing).
    const coins = this.deps.coins as CoinService & {
      listAll?: () => Promise<{ reference: string; record: CoinRecord }[]>
    }
    const list = coins.listAll ? await coins.listAll() : await coins.list()
    return new Map(list.map((c) => [c.reference, c.record]))
  }

  #toApi(row: Row, coins: Map<string, CoinRecord>) {
    const chainCoin = this.deps.chain.coins.find((c) => c.reference === row.coin)
    const decimals = chainCoin?.decimals ?? 18
    const coin = coins.get(row.coin) ?? this.#inactiveCoinRecord(row.coin)
    return {
      _id: row.id,
      owner: row.ownerId,
      amount: unitsToNumber(BigInt(row.amount), decimals),
      coin,
      chain: row.chainId,
      currency: row.coin,
      // A record made while no rate could be had shows an empty rate and no USD value.
      usdValue: row.usdValue === null ? 0 : Number(row.usdValue),
      rate: row.rate ?? '',
      description: row.description,
      ...(row.txInfo ? { tx: JSON.stringify(row.txInfo) } : {}),
      type: row.type,
      method: row.method,
      status: row.status,
      isFee: row.isFee,
      isPlatformFee: row.isPlatformFee,
      ...(row.isExternal === null ? {} : { isExternal: row.isExternal }),
      responseData: row.responseData,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      __v: row.version,
    }
  }

  /** A coin no longer listed (deactivated): described from the chain configuration. */
  #inactiveCoinRecord(reference: string): CoinRecord {
    const c = this.deps.chain.coins.find((x) => x.reference === reference)
    const epoch = new Date(0).toISOString()
    return {
      _id: '',
      name: c?.name ?? reference,
      symbol: c?.symbol ?? reference.toUpperCase(),
      reference,
      icon: c?.icon ?? '',
      ...(c?.contractAddress ? { contractAddress: c.contractAddress } : {}),
      decimal: String(c?.decimals ?? 18),
      isToken: c?.isToken ?? false,
      rpcChainId: String(this.deps.chain.chainId),
      active: false,
      order: c?.order ?? 0,
      createdAt: epoch,
      updatedAt: epoch,
      __v: 0,
    }
  }
}
