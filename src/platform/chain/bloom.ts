// Logs blooms (the 2048-bit filter in every block header, Yellow Paper §4.3.1): whether a block
// may hold a log of an address with a topic, to tell an empty `eth_getLogs` answer that cannot be
// true from one that may be. Pure.
import { type Address, type Hex, hexToBytes, keccak256, pad, toEventSelector } from 'viem'

/** topic 0 of an ERC-20 `Transfer(address,address,uint256)` */
export const TRANSFER_TOPIC: Hex = toEventSelector('Transfer(address,address,uint256)')

/** The three (byte index, bit mask) pairs an item sets in a 256-byte bloom. */
export function bloomBits(item: Hex): [number, number][] {
  const hash = hexToBytes(keccak256(item))
  const out: [number, number][] = []
  for (let i = 0; i < 6; i += 2) {
    const bit = ((hash[i]! << 8) | hash[i + 1]!) & 2047
    out.push([255 - (bit >> 3), 1 << (bit & 7)])
  }
  return out
}

/** Whether `bloom` may contain `item` (false: it certainly does not). */
export function bloomMayContain(bloom: Hex, item: Hex): boolean {
  const bytes = hexToBytes(bloom)
  if (bytes.length !== 256) return true
  return bloomBits(item).every(([byte, mask]) => (bytes[byte]! & mask) !== 0)
}

/** A bloom holding `items` (addresses and topics), for tests and tools. */
export function bloomOf(items: readonly Hex[]): Hex {
  const bytes = new Uint8Array(256)
  for (const item of items) for (const [byte, mask] of bloomBits(item)) bytes[byte]! |= mask
  return `0x${Buffer.from(bytes).toString('hex')}`
}

/** An address as an indexed topic (left-padded to 32 bytes). */
export const addressTopic = (address: Address): Hex => pad(address.toLowerCase() as Hex, { size: 32 })

export interface BloomBlock {
  number: bigint
  logsBloom?: Hex | undefined
}

export interface AnsweredLog {
  address: string
  blockNumber: bigint | null
  topics: readonly Hex[]
}

/**
 * Blocks whose bloom may hold a `Transfer` of one of `tokens` while `logs` (the answer for the
 * range) has no Transfer log of that token in that block: the answer cannot be trusted for them.
 * Blocks without a bloom are not checked. Ascending.
 */
export function suspiciousBlocks(
  blocks: readonly BloomBlock[],
  tokens: readonly Address[],
  logs: readonly AnsweredLog[],
): bigint[] {
  const seen = new Set<string>()
  for (const l of logs)
    if (l.blockNumber !== null && l.topics[0]?.toLowerCase() === TRANSFER_TOPIC)
      seen.add(`${l.blockNumber}:${l.address.toLowerCase()}`)
  const out: bigint[] = []
  for (const b of blocks) {
    if (!b.logsBloom || !bloomMayContain(b.logsBloom, TRANSFER_TOPIC)) continue
    if (tokens.some((t) => bloomMayContain(b.logsBloom!, t) && !seen.has(`${b.number}:${t.toLowerCase()}`)))
      out.push(b.number)
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

/** Ranges of at most `size` blocks covering `from..to` (node limits on eth_getLogs ranges). */
export function splitRange(from: bigint, to: bigint, size: bigint): [bigint, bigint][] {
  const out: [bigint, bigint][] = []
  for (let start = from; start <= to; start += size)
    out.push([start, start + size - 1n < to ? start + size - 1n : to])
  return out
}
