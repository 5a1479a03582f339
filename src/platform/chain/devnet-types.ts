// What only the embedded dev chain offers besides the chain adapter's contract (types.ts, which
// re-exports these): its test controls and the journal it rebuilds itself from.
import type { Address, Hex } from 'viem'

/** Helpers that only a development chain can offer. */
export interface DevnetControls {
  /**
   * Funded dev accounts of the standard Hardhat test mnemonic
   * (`test test test test test test test test test test test junk`), free for tests and scripts
   * to pay from. Accounts reserved by the platform (deployer, treasury, gas wallet) are not listed.
   */
  readonly accounts: readonly { address: Address; privateKey: Hex }[]
  /** the loopback JSON-RPC URL when the devnet listens (DEVCHAIN_PORT or `listen`) */
  readonly rpcUrl: string | undefined
  /** starts the loopback JSON-RPC server (port 0 = any free port); returns its URL */
  listen(port?: number): Promise<string>
  /** mines `blocks` empty blocks (default 1) */
  mine(blocks?: number): Promise<void>
  /** automine on (default): each transaction is mined in its own block at once */
  setAutomine(on: boolean): Promise<void>
  /** `evm_snapshot`: the chain as it stands now, to go back to with `revert` */
  snapshot(): Promise<Hex>
  /**
   * `evm_revert`: the chain goes back to the snapshot (blocks after it vanish: with new blocks
   * mined after, a reorganisation); the snapshot and later ones are used up. False for an unknown id.
   */
  revert(id: Hex): Promise<boolean>
  /** mines a block every `ms` (0 = off), or at a random interval in `[min, max]` */
  setIntervalMining(ms: number | [number, number]): Promise<void>
  /** the base fee of the next block (a gas spike); later blocks follow the usual EIP-1559 rule */
  setNextBaseFee(wei: bigint): Promise<void>
  /** credits `amount` base units of `coin` to `address` (native: balance set; token: minted) */
  fund(address: string, coin: string, amount: bigint): Promise<void>
  /**
   * Simulates an outage: while down, every adapter call and every JSON-RPC request fails as if
   * the node were unreachable (ChainError UNAVAILABLE; HTTP 503 on the JSON-RPC server).
   */
  setDown(down: boolean): void
  /**
   * Answers every JSON-RPC request for `method` with a node's `error` (for example
   * `{ code: 3, message: 'execution reverted' }` for eth_estimateGas, as a node answers a send it
   * will not run) until called again with `null`; the node itself is untouched.
   */
  refuse(method: string, error: { code: number; message: string } | null): void
  /**
   * Compacts the journal now, up to the block every reader is done with (see
   * devnet-compactor.ts): the base reached, why it was refused, or null (nothing to compact, or
   * no compaction configured).
   */
  compact(): Promise<{ base: bigint } | { refused: string } | null>
  /**
   * Rebuilds the live EVM from the compacted journal now and swaps it in (see devnet-swap.ts), as
   * the devnet does after each compaction of its own: the head and the base, the journal entries
   * replayed, the blocks whose hashes are shown as before, the time it took. Throws, leaving the
   * running EVM as it was, when the journal holds no compaction or the rebuilt EVM differs.
   */
  rebuild(): Promise<{ head: bigint; base: bigint; entries: number; shownHashes: number; ms: number }>
}

/** Where a devnet records what changed its state, to rebuild it at the next start. */
export interface DevnetJournal {
  /** every recorded state-changing JSON-RPC call, oldest first */
  load(): Promise<DevnetJournalEntry[]>
  append(entry: DevnetJournalEntry): Promise<void>
}

export interface DevnetJournalEntry {
  method: string
  params: unknown[]
}
