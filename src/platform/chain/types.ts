// The chain adapter's contract: one interface, two implementations (an in-process dev chain and a
// JSON-RPC endpoint). Everything above the platform layer (ledger, deposit watcher, withdrawals,
// escrow payouts) talks to the chain only through `ChainAdapter`, so both run the same code.
//
// Conventions used throughout:
// - Amounts are integer base units (`bigint`): wei for the native coin, the token's smallest unit
//   for ERC-20 tokens. Never floats.
// - Coins are named by their `reference` (lowercase slug, e.g. `avax`, `usdc`), the same key the
//   API, the ledger and the `coins` table use.
// - Addresses returned are EIP-55 checksummed (`0xAbC…`). Compare them case-insensitively; use
//   `address.toLowerCase()` as a map key. Address filters given to the adapter accept any case.
// - Block numbers are `bigint` (viem's convention); nonces and decimals are `number`.
// - Private keys are `0x`-prefixed 32-byte hex. The adapter never logs them, never puts them in an
//   error message and never returns them (except `DevnetControls.accounts`, public test keys).
import type { Address, Chain, Hash, Hex, PublicClient } from 'viem'
import type { DevnetControls } from './devnet-types.ts'

export type { DevnetControls, DevnetJournal, DevnetJournalEntry } from './devnet-types.ts'

export type ChainKind = 'devnet' | 'rpc'

/** A coin as the chain sees it: everything needed to move and read it on chain. */
export interface ChainCoin {
  /** lowercase slug, unique: the coin's key everywhere (`avax`, `usdc`) */
  reference: string
  name: string
  /** ticker, e.g. `AVAX`, `USDC` */
  symbol: string
  /** image URL shown by clients */
  icon: string
  /** decimal places of the base unit (18 for the native coin, 6 for the dev USDC) */
  decimals: number
  /** true for an ERC-20 token, false for the chain's native currency */
  isToken: boolean
  /** the token contract (checksummed); null for the native coin. Resolved (deployed) on the devnet. */
  contractAddress: Address | null
  /** display order, ascending */
  order: number
  active: boolean
  /** the configured static USD price of one whole coin, as a decimal string (e.g. `"1"`, `"35.12"`) */
  usdRate: string
  /** the most a send of this coin pays per gas (wei), from the coins configuration; absent: no limit */
  maxFeePerGas?: bigint
}

/** What an ERC-20 contract reports about itself. */
export interface TokenInfo {
  /** the contract, checksummed */
  address: Address
  decimals: number
  /** null when the contract does not answer `name()` */
  name: string | null
  /** null when the contract does not answer `symbol()` */
  symbol: string | null
}

/** The chain's identity and public connection data (what `GET /v1/payment/rpc` shows). */
export interface ChainInfo {
  /** EVM chain id (31337 on the devnet) */
  chainId: number
  /** display name, e.g. `WorkPay Devnet` or `Avalanche C-Chain` */
  name: string
  /** public JSON-RPC URLs a wallet app (MetaMask) may use; empty on a devnet without DEVCHAIN_PORT */
  rpcUrls: string[]
  blockExplorerUrls: string[]
  nativeCurrency: { name: string; symbol: string; decimals: number }
}

/** A transaction as found in a block (enough to detect native-coin transfers). */
export interface ChainTx {
  hash: Hash
  from: Address
  /** null for a contract creation */
  to: Address | null
  /** native value in wei */
  value: bigint
  nonce: number
  /** calldata; `0x` for a plain native transfer */
  input: Hex
  blockNumber: bigint
}

export interface ChainBlock {
  number: bigint
  hash: Hash
  /** the hash of the block before it (a reorg shows as a parent that is not the block read before) */
  parentHash: Hash
  /** seconds since the epoch */
  timestamp: bigint
  transactions: ChainTx[]
  /** the block's logs bloom (token transfer answers are checked against it); absent: not checked */
  logsBloom?: Hex
}

/** CONFIRMATIONS: blocks a deposit needs (itself included), or the chain's `finalized` block. */
export type Confirmations = number | 'finalized'

/**
 * Token transfers of a range of blocks, checked against the blocks' logs blooms. `transfers` holds
 * what blocks `from..verifiedTo` emitted; `unverified` is the first block whose answer stayed
 * inconsistent with its bloom (asked again, from each provider, then by its hash): nothing from it
 * or after it is given, and it must be read again later.
 */
export interface VerifiedTransfers {
  transfers: TokenTransfer[]
  /** the last block of the answer that is verified (`from - 1` when none) */
  verifiedTo: bigint
  unverified: { block: bigint; reason: string } | null
}

/** A successful native-coin transfer (value > 0, receipt status success). */
export interface NativeTransfer {
  coin: string
  hash: Hash
  from: Address
  to: Address
  amount: bigint
  blockNumber: bigint
  blockHash: Hash
}

/** One ERC-20 `Transfer` event of a configured token. Logs only exist for successful transactions. */
export interface TokenTransfer {
  /** the coin reference of the token */
  coin: string
  token: Address
  hash: Hash
  logIndex: number
  from: Address
  to: Address
  amount: bigint
  blockNumber: bigint
  blockHash: Hash
}

/** Restricts transfer scans to some addresses (any case). Omit a side to accept every address. */
export interface TransferFilter {
  /** only transfers whose recipient is in this set */
  to?: Iterable<string>
  /** only transfers whose sender is in this set */
  from?: Iterable<string>
}

/** Fees to put in a transaction: EIP-1559 when the chain has a base fee, legacy otherwise. */
export type FeeEstimate =
  | {
      type: 'eip1559'
      maxFeePerGas: bigint
      maxPriorityFeePerGas: bigint
      /** the next block's base fee, when the estimate knows it */
      baseFeePerGas?: bigint
    }
  | { type: 'legacy'; gasPrice: bigint }

/** What to sign: a transfer of `amount` base units of `coin` to `to`. */
export interface TransferRequest {
  coin: string
  to: string
  amount: bigint
  /** the sender's nonce; pass it explicitly so a retry re-signs the same slot (see `getNonce`) */
  nonce: number
  /** gas limit; default: 21000 for the native coin, an estimate (+20 %) for a token transfer */
  gas?: bigint
  /** fees; default: `estimateFees()` at signing time */
  fees?: FeeEstimate
}

/** A signed, not yet broadcast transaction. Store `raw` and `hash` before broadcasting. */
export interface SignedTransfer {
  /** the RLP-encoded signed transaction, ready for `broadcast` */
  raw: Hex
  /** its hash (known before broadcasting) */
  hash: Hash
  from: Address
  /** the transfer's recipient (not the token contract) */
  to: Address
  coin: string
  amount: bigint
  nonce: number
  gas: bigint
  fees: FeeEstimate
  /** the most this transaction can cost in native coin: gas × (maxFeePerGas | gasPrice) */
  maxFee: bigint
}

/** One log of a mined transaction, as the node returned it. */
export interface ReceiptLog {
  address: Address
  topics: Hex[]
  data: Hex
  logIndex: number
}

export interface TransferReceipt {
  hash: Hash
  status: 'success' | 'reverted'
  blockNumber: bigint
  blockHash: Hash
  from: Address
  /** the transaction's `to` (the token contract for a token transfer); null for a contract creation */
  to: Address | null
  /** the logs it emitted (none for a reverted transaction) */
  logs: ReceiptLog[]
  gasUsed: bigint
  effectiveGasPrice: bigint
  /** native coin actually paid for gas: gasUsed × effectiveGasPrice */
  fee: bigint
}

/** A key the platform holds (treasury, gas wallet). The private key stays inside the adapter. */
export interface ChainSigner {
  readonly address: Address
  /** signs a transfer from this key (see `ChainAdapter.signTransfer`); nonce defaults to the pending one */
  signTransfer(req: Omit<TransferRequest, 'nonce'> & { nonce?: number }): Promise<SignedTransfer>
  /** signs with the pending nonce and broadcasts; for simple top-ups, not for retried jobs */
  send(req: Omit<TransferRequest, 'nonce'>): Promise<SignedTransfer>
}

export type ChainErrorCode =
  /** the node cannot be reached, timed out, or answered 5xx: retry later */
  | 'UNAVAILABLE'
  /** the nonce was already used by another transaction (not the one being broadcast) */
  | 'NONCE_TOO_LOW'
  /** the sender cannot pay amount + gas */
  | 'INSUFFICIENT_FUNDS'
  /** a transaction with that nonce is pending with a higher fee */
  | 'UNDERPRICED'
  /** the node refused the transaction for another reason (invalid, gas too low, ...) */
  | 'REJECTED'
  /** a coin reference the adapter does not know */
  | 'UNKNOWN_COIN'
  /** an argument is malformed (bad address, negative amount, bad key) */
  | 'INVALID_ARGUMENT'

/** Every failure the adapter reports. `message` never contains a private key. */
export class ChainError extends Error {
  constructor(
    readonly code: ChainErrorCode,
    message: string,
    /** true when the same call may succeed later unchanged (network trouble) */
    readonly retryable: boolean = code === 'UNAVAILABLE',
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'ChainError'
  }
}

export interface ChainAdapter {
  readonly kind: ChainKind
  readonly chainId: number
  /** viem chain definition (id, name, native currency, rpc urls) */
  readonly chain: Chain
  readonly info: ChainInfo
  /**
   * The viem PublicClient under this adapter, for tests and tools. Service code uses the methods
   * below, whose failures are mapped to ChainError.
   */
  readonly client: PublicClient
  /**
   * configured coins (active and inactive) and tokens added at run time, in `order`, with token
   * addresses resolved; the same array from start to end (a coin added later appears in it)
   */
  readonly coins: readonly ChainCoin[]
  /** a coin by reference; throws ChainError UNKNOWN_COIN */
  coin(reference: string): ChainCoin
  /**
   * Registers an ERC-20 token added at run time: from then on it is moved (`signTransfer`), read
   * (`balanceOf`) and scanned (`tokenTransfers`) like a configured one. The same reference and
   * contract again answers the known coin; a reference or contract of another coin is
   * INVALID_ARGUMENT. Nothing is read from the chain.
   */
  addToken(coin: ChainCoin): ChainCoin
  /**
   * What an ERC-20 contract says of itself: `decimals()` (REJECTED when it has none, e.g. no
   * contract at the address or not a token), and `name()` and `symbol()` when it answers them.
   */
  tokenInfo(address: string): Promise<TokenInfo>

  /** balance of `address` in base units of `coin` (at `blockNumber`, default the latest block) */
  balanceOf(address: string, coin: string, blockNumber?: bigint): Promise<bigint>
  /** balances of `address` in every configured coin, keyed by reference */
  balances(address: string): Promise<Record<string, bigint>>

  /** the latest block number */
  blockNumber(): Promise<bigint>
  /**
   * The newest block with `confirmations` blocks on it (itself included), counted from the lowest
   * recent head of the healthy providers (a provider far behind the others is left out, one ahead
   * never counts); `finalized`: the chain's finalized block. Never lower than an earlier answer:
   * a head that went backwards is ignored.
   */
  confirmedHead(confirmations: Confirmations): Promise<bigint>
  /** a block with its full transactions; null when it does not exist yet */
  getBlock(number: bigint): Promise<ChainBlock | null>
  /**
   * Successful native-coin transfers (value > 0, including those to or from contracts) mined in
   * blocks `fromBlock..toBlock` (inclusive), in chain order. Transfers made inside contract calls
   * (internal transactions) are not seen.
   */
  nativeTransfers(fromBlock: bigint, toBlock: bigint, filter?: TransferFilter): Promise<NativeTransfer[]>
  /**
   * ERC-20 Transfer events of the given tokens (default: every token coin) in blocks
   * `fromBlock..toBlock` (inclusive), in chain order. Large ranges are split to fit node limits.
   */
  tokenTransfers(
    fromBlock: bigint,
    toBlock: bigint,
    opts?: TransferFilter & { coins?: string[] },
  ): Promise<TokenTransfer[]>

  /**
   * `tokenTransfers` of the blocks given (one chain, in order, as read with their `logsBloom`),
   * accepted only where consistent with each block's bloom: a block whose bloom may hold a
   * Transfer of a wanted token while the answer has none of its logs is asked again, then from
   * each other provider, then by its hash (EIP-234: a node that lacks the block says so).
   */
  verifiedTokenTransfers(
    blocks: readonly ChainBlock[],
    opts?: { coins?: string[] },
  ): Promise<VerifiedTransfers>

  /** current fee suggestion (EIP-1559 when the chain has a base fee) */
  estimateFees(): Promise<FeeEstimate>
  /** gas limit for a transfer: 21000 for native, eth_estimateGas (+20 %) for a token */
  estimateTransferGas(coin: string, from: string, to: string, amount: bigint): Promise<bigint>
  /** nonce of `address`: `pending` counts transactions in the mempool, `latest` only mined ones */
  getNonce(address: string, blockTag?: 'pending' | 'latest'): Promise<number>

  /** the address of a private key (validates it; INVALID_ARGUMENT when malformed) */
  addressOf(privateKey: Hex): Address
  /** signs a transfer from `privateKey` WITHOUT broadcasting it */
  signTransfer(privateKey: Hex, req: TransferRequest): Promise<SignedTransfer>
  /**
   * Broadcasts a signed transaction and returns its hash. Idempotent: if the node already knows
   * this exact transaction ("already known", or nonce too low because this same hash was mined),
   * it is a success. Throws ChainError (NONCE_TOO_LOW when the nonce went to another transaction,
   * INSUFFICIENT_FUNDS, UNDERPRICED, REJECTED, UNAVAILABLE).
   */
  broadcast(raw: Hex): Promise<Hash>
  /** the receipt of a mined transaction; null while it is pending or unknown */
  getReceipt(hash: Hash): Promise<TransferReceipt | null>
  /** the whole receipt of a mined transaction (gas price, logs), for records */
  receiptDetails(hash: Hash): Promise<ReceiptDetails>
  /** whether code is deployed at `address` (a contract or a contract wallet) */
  isContract(address: string): Promise<boolean>
  /** gas a plain value transfer `from` → `to` takes (eth_estimateGas; a refusal is REJECTED) */
  estimateValueGas(from: string, to: string, value: bigint): Promise<bigint>
  /** an EIP-191 signature of `message` by `address`, or the contract wallet's EIP-1271 answer */
  verifySignature(address: Address, message: string, signature: Hex): Promise<boolean>
  /** polls until the receipt exists (default timeout 30 s → ChainError UNAVAILABLE) */
  waitForReceipt(hash: Hash, opts?: { timeoutMs?: number; pollMs?: number }): Promise<TransferReceipt>

  /** the platform treasury (platform fees go to the custodial fee address): pays out nothing unasked */
  readonly treasury: ChainSigner
  /** the gas wallet: tops up custodial addresses with native coin so they can move tokens */
  readonly gasWallet: ChainSigner

  /** present only on the devnet: test and demo helpers */
  readonly devnet?: DevnetControls

  /** releases connections (and stops the devnet and its JSON-RPC server) */
  close(): Promise<void>
}

/** The whole receipt of a mined transaction. */
export interface ReceiptDetails {
  transactionHash: Hash
  blockNumber: bigint
  blockHash: Hash
  from: Address
  to: Address | null
  status: 'success' | 'reverted'
  gasUsed: bigint
  effectiveGasPrice: bigint
  logs: Array<{ address: Address; topics: Hex[]; data: Hex; logIndex: number }>
}
