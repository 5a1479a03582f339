// Public contract of the payment module: the coin registry (`services.coins`). The chain adapter
// is `services.chain` (src/platform/chain/types.ts), rates are `services.rates`
// (src/platform/rates/types.ts).
import type { ChainCoin } from '../../platform/chain/types.ts'

/** The coin schema (and its example) that other modules' responses embed. */
export { AVAX_COIN, CoinSchema } from './schemas.ts'
/** the coin registry's service (built by module.ts) */
export type { PaymentService } from './service.ts'

/** A coin record as stored and as the API shows it (SPEC "Coin"). */
export interface CoinRecord {
  _id: string
  name: string
  symbol: string
  reference: string
  icon: string
  /** absent (undefined) for the native coin */
  contractAddress?: string
  /** number of decimal places, as a string (`"18"`, `"6"`) */
  decimal: string
  isToken: boolean
  rpcChainId: string
  active: boolean
  order: number
  createdAt: string
  updatedAt: string
  __v: number
}

/** The chain record as stored and as `GET /v1/payment/rpc` shows it (SPEC "RPC configuration"). */
export interface ChainRecord {
  _id: string
  rpcName: string
  rpcChainId: string
  rpcUrls: string[]
  blockExplorerUrls: string[]
  rpcNativeCurrency: { name: string; symbol: string; decimals: string }
  active: boolean
  createdAt: string
  updatedAt: string
  __v: number
}

/** A coin with its record id and chain data together (what services use). */
export interface Coin extends ChainCoin {
  /** the coins table id (24 hex) */
  id: string
  /** the record in API shape */
  record: CoinRecord
}

export interface CoinService {
  /** active coins in display order */
  list(): Promise<Coin[]>
  /** an active coin by reference (any case); unknown or inactive → errors.validation (400) */
  get(reference: string): Promise<Coin>
  /** the active chain record (its `_id` is the Transaction `chain` field) */
  chain(): Promise<ChainRecord>
  /**
   * Base units → exact decimal string in whole coins, e.g. format(1500000n, 'usdc') = "1.5".
   * `fixed` pads/rounds-down to that many decimals (wallet amounts use 6: "0.000000").
   */
  format(amount: bigint, reference: string, fixed?: number): string
  /** Base units → a JSON number in whole coins (for API fields typed number) */
  toNumber(amount: bigint, reference: string): number
  /**
   * A user amount (JSON number or decimal string, whole coins) → exact base units. Rejects
   * negative, non-finite, exponent overflow or more decimals than the coin has with
   * errors.validation at `path` (default `/amount`).
   */
  parse(value: number | string, reference: string, path?: string): bigint
}
