// The format of the devnet journal's `devnet_state` entry, which replaces the journal's entries up
// to a block every reader is done with (what the service can enumerate: every touched account's
// balance and nonce, the dev tokens' total supplies, balances and allowances), so that a start
// replays the state and a few entries instead of every call ever made. Read from the live node at
// the base block by devnet-capture.ts, set on a new node by devnet-apply-state.ts; when, by
// devnet-compactor.ts. Block numbers never go back; blocks at and above the base get new hashes
// when the chain is rebuilt (their parents differ): the entry says so (`rebase`) until the service
// has recorded the new hashes.
import { type Address, type Hex, keccak256 } from 'viem'
import type { DevnetJournalEntry } from './types.ts'

export const STATE_METHOD = 'devnet_state'
/** DevToken's storage layout (contracts/DevToken.sol): totalSupply, balanceOf, allowance */
export const SLOT_TOTAL_SUPPLY = 2n
export const SLOT_BALANCES = 3n
export const SLOT_ALLOWANCES = 4n

/** The state carried by a `devnet_state` entry (amounts as hex strings: JSON has no bigint). */
export interface DevnetState {
  /** the block whose state this is; the replay mines empty blocks up to it */
  base: number
  /** the base block's timestamp, and the base fee the block after it had (or would have) */
  baseTime: number
  nextBaseFee: Hex
  coinbase: Address
  automine: boolean
  /** [address, balance, nonce] */
  accounts: [Address, Hex, number][]
  /** the accounts the bootstrap touches (the rest start empty: the replay pays them in bulk) */
  bootstrapped?: Address[]
  tokens: {
    address: Address
    totalSupply: Hex
    /** [holder, balance] */
    balances: [Address, Hex][]
    /** [owner, spender, allowance] */
    allowances: [Address, Address, Hex][]
  }[]
  /** the service's recorded block hashes are those of the chain before this compaction */
  rebase: boolean
}

export class CompactionRefused extends Error {}

export const isState = (e: DevnetJournalEntry | undefined): e is { method: string; params: [DevnetState] } =>
  e?.method === STATE_METHOD

export const num = (hex: unknown) => BigInt(hex as Hex)
export const lower = (a: string) => a.toLowerCase()
const pad = (v: bigint) => v.toString(16).padStart(64, '0')
export const mappingSlot = (key: string, slot: bigint) => `0x${pad(num(key))}${pad(slot)}` as Hex
/** the storage slot of `holder`'s entry in the mapping at `slot` */
export const storageKey = (holder: string, slot: bigint): Hex => keccak256(mappingSlot(holder, slot))
