// Escrow's ports: what it needs from other modules (collections, settlement, the ledger, custodial
// keys, transactions, events, coins), each narrowed to the calls escrow makes. Escrow's services
// (initiate, credits, release, cancel, dispute split, payouts) are built from these and the escrow
// repo; none of them reaches back into service.ts, which only composes them.
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { Clock } from '../../platform/clock.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import type { ConfirmPassword } from '../account/types.ts'
import type { CollectionService } from '../collections/types.ts'

export type { PayoutKind } from '../collections/types.ts'

import type { EventService } from '../events/types.ts'
import type { Ledger } from '../ledger/types.ts'
import type { CoinService } from '../payment/types.ts'
import type {
  DepositReports,
  DepositWatcher,
  Halts,
  KeyStore,
  OutgoingSender,
  TransferFeeQuote,
} from '../settlement/types.ts'

export type { DepositCredited } from '../settlement/types.ts'

import type { TransactionService } from '../transactions/types.ts'

/** Collections: the job an escrow opens, the escrow's state and payout statuses on it. */
export type EscrowCollections = Pick<
  CollectionService,
  | 'createIn'
  | 'createForEscrow'
  | 'markEscrow'
  | 'recordPayout'
  | 'recordPayouts'
  | 'escrowState'
  | 'assertEscrowMovable'
>

/** The ledger: the escrow's and the payer's accounts, their balances, and the holds of transfers. */
export type EscrowLedger = Pick<
  Ledger,
  'ensureAccount' | 'newOwnerAccount' | 'account' | 'balance' | 'hold' | 'holdMany'
>

/** Custodial keys: an escrow's payment address and a user's wallet address. */
export type EscrowKeys = Pick<KeyStore, 'ensure' | 'newOwnerKey' | 'find' | 'address'>

/** Users' transaction records and the coins' USD rates. */
export type EscrowTransactions = Pick<TransactionService, 'requireRate' | 'rateOf' | 'record' | 'update'>

export type EscrowEvents = Pick<EventService, 'emit'>

/** The coin registry: an active coin by reference. */
export type EscrowCoins = Pick<CoinService, 'get'>

/** Settlement's deposit watcher: scans on request, and the credits still to report. */
export type DepositWatch = Pick<DepositWatcher, 'waitForScan' | 'reports'>

/** Settlement's coin halts: nothing is sent in a coin reconciliation halted. */
export type CoinHalts = Pick<Halts, 'assertNotHalted'>

/** Settlement's outgoing sender: transfers queued in the caller's transaction, their outcomes. */
export type Outgoing = Pick<OutgoingSender, 'enqueue' | 'handle' | 'get' | 'statuses'>

/** Settlement's quote of the gas transfers of a coin will cost (503 when the chain is unreachable). */
export interface TransferFees {
  quoteTransferFee(coin: string): Promise<TransferFeeQuote>
}

/** Everything escrow is built from: the ports, the platform's parts and its settings. */
export interface EscrowPorts {
  db: Db
  clock: Clock
  log: Logger
  chain: ChainAdapter
  coins: EscrowCoins
  ledger: EscrowLedger
  keys: EscrowKeys
  collections: EscrowCollections
  transactions: EscrowTransactions
  events: EscrowEvents
  watcher: DepositWatch
  halts: CoinHalts
  fees: TransferFees
  /** checks the code confirming a sensitive action and runs `then` in the transaction using it up */
  verifySensitiveCode: <T>(userId: string, code: string, then: (tx: Tx) => Promise<T>) => Promise<T>
  /** the account password of a payment from the in-app wallet */
  confirmPassword: ConfirmPassword
  platformFeePercent: number
  /** where releases pay the platform fee: the platform's fee address (lower case) */
  platformFeeAddress: string
  /** payment methods beside crypto (a card provider when configured) */
  cardPayments: boolean
}

/** What the payouts (an escrow's legs and in-app payments) are built from. */
export interface PayoutsDeps {
  db: Db
  clock: Clock
  chain: ChainAdapter
  ledger: EscrowLedger
  transactions: EscrowTransactions
  collections: EscrowCollections
  outgoing: Outgoing
  jobs: JobQueue
  /** what the deposit watcher credited */
  deposits: Pick<DepositReports, 'credited'>
}
