// The deposit watcher's shapes: what one pass reads from the chain, what it knows of custodial
// addresses, the movements it classifies, and the report a credited deposit sends.
import type { ChainBlock, TokenTransfer, TransferReceipt } from '../../../platform/chain/types.ts'
import type { KeyOwnerKind } from '../keys.ts'

/** The job that runs the watcher (the only entry point of a scan). */
export const WATCH_JOB = 'wallet.watch'
/** The job written with every credited deposit, in the transaction that credits it. */
export const DEPOSIT_CREDITED_JOB = 'deposit.credited'

declare module '../../../platform/jobs/queue.ts' {
  interface JobPayloads {
    /** a scheduled pass, or one requested by a caller waiting for a scan */
    'wallet.watch': { chainId: number; requested?: boolean }
    'deposit.credited': DepositCredited
  }
}

/** Blocks and token logs of one block range, each block read once. */
export interface FetchedRange {
  from: bigint
  to: bigint
  blocks: ChainBlock[]
  /** ERC-20 Transfer logs of every configured token in the range */
  tokenTransfers: TokenTransfer[]
}

/** A custodial address (lower case) and whose it is. */
export interface Custodial {
  address: string
  ownerKind: KeyOwnerKind
  ownerId: string
  exportedAt: Date | null
}

/** A transaction the platform signed itself (registered before it was broadcast). */
export interface OwnTransaction {
  /** where what it delivers to a custodial address is credited instead of the owner's account */
  creditAccountId: string | null
}

/** Everything `classify` looks at: the range, receipts of the transactions that matter, lookups. */
export interface ClassifyInput {
  range: FetchedRange
  /** receipts by lower-case hash, for the transactions `receiptsNeeded` named */
  receipts: ReadonlyMap<string, TransferReceipt>
  /** custodial addresses among the range's candidates, by lower-case address */
  custodial: ReadonlyMap<string, Custodial>
  /** transactions of the range the platform signed, by lower-case hash */
  own: ReadonlyMap<string, OwnTransaction>
  /** reference of the chain's native coin (gas), if any */
  nativeCoin: string | null
  /** the platform's gas wallet (lower case): what it sends a custodial address is gas */
  gasWallet?: string | null
}

export type MovementKind = 'deposit' | 'withdrawal' | 'fee'

/** One thing that moved at a custodial address, to be applied once. */
export interface Movement {
  kind: MovementKind
  /** lower case */
  txHash: string
  /** -1 for native value and fees */
  logIndex: number
  coin: string
  amount: bigint
  /** lower case */
  from: string
  /** lower case; null for a contract creation */
  to: string | null
  /** the custodial address concerned (lower case) */
  address: string
  custodial: Custodial
  blockNumber: bigint
  blockHash: string
  txIndex: number
  /** the platform signed this transaction (its sender books it; no user record here) */
  own: boolean
  /** for value the platform sent: the account to credit instead of the address owner's */
  creditAccountId: string | null
  /** native value the platform's gas wallet sent that no transfer of this database registered (a
   * top-up of a timeline a restore lost): the platform's gas at the address, never the owner's */
  platformGas?: boolean
}

/** What a range means for the ledger, in chain order. */
export interface Classified {
  /** value that arrived from outside the platform */
  deposits: Movement[]
  /** value and gas that left a custodial address in a transaction the platform did not sign */
  externalWithdrawals: Movement[]
  /** value the platform itself sent to a custodial address (gas top-ups, in-app payments) */
  ownTransfers: Movement[]
  /** all of the above, in the order they happened (the order they are applied in) */
  ordered: Movement[]
}

/** The report of a credited deposit (the `deposit.credited` job's payload). */
export interface DepositCredited {
  chainId: number
  /** the ledger transfer that credited it (the deposit's id) */
  transferId: string
  txHash: string
  logIndex: number
  coin: string
  /** the custodial address (lower case) */
  address: string
  ownerKind: KeyOwnerKind
  ownerId: string
  /** the credited ledger account (the owner's, or the account a platform transfer named) */
  accountId: string
  /** base units, as a decimal string */
  amount: string
  blockNumber: string
  /** the user's deposit transaction record, for user addresses */
  transactionId: string | null
}

export interface ScanResult {
  /** false when another process holds the chain's leadership */
  leader: boolean
  /** last processed block after the scan */
  cursor: bigint | null
  /** new events applied (credited, debited or parked) */
  applied: number
}
