// Logs blooms: which blocks an eth_getLogs answer cannot be trusted for. Pure (the dev chain's own
// blooms are checked in test/chain/rpc-ranges.test.ts).
import { getAddress, type Hex, toEventSelector } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  addressTopic,
  bloomMayContain,
  bloomOf,
  splitRange,
  suspiciousBlocks,
  TRANSFER_TOPIC,
} from '../../src/platform/chain/bloom.ts'

const usdc = getAddress('0x73511669fd4de447fed18bb79bafeac93ab7f31f')
const other = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3')
const user = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8')
const empty = `0x${'00'.repeat(256)}` as Hex

describe('bloom', () => {
  it('holds what was put in it and (almost always) nothing else', () => {
    const bloom = bloomOf([usdc, TRANSFER_TOPIC, addressTopic(user)])
    expect(bloomMayContain(bloom, usdc)).toBe(true)
    expect(bloomMayContain(bloom, TRANSFER_TOPIC)).toBe(true)
    expect(bloomMayContain(bloom, addressTopic(user))).toBe(true)
    expect(bloomMayContain(bloom, other)).toBe(false)
    expect(bloomMayContain(empty, usdc)).toBe(false)
    expect(TRANSFER_TOPIC).toBe(toEventSelector('Transfer(address,address,uint256)'))
  })
})

describe('suspiciousBlocks', () => {
  const transferBlock = { number: 11n, logsBloom: bloomOf([usdc, TRANSFER_TOPIC]) }
  const blocks = [
    { number: 10n, logsBloom: empty },
    transferBlock,
    { number: 12n, logsBloom: bloomOf([other, TRANSFER_TOPIC]) },
    { number: 13n },
  ]
  const log = (blockNumber: bigint, address: string, topic: Hex = TRANSFER_TOPIC) => ({
    address,
    blockNumber,
    topics: [topic],
  })

  it('an empty answer for a block whose bloom announces a token transfer is doubtful', () => {
    expect(suspiciousBlocks(blocks, [usdc], [])).toEqual([11n])
  })

  it('an answer with the token’s Transfer in that block is consistent', () => {
    expect(suspiciousBlocks(blocks, [usdc], [log(11n, usdc.toLowerCase())])).toEqual([])
  })

  it('a log of another event or another block does not count', () => {
    const approval = toEventSelector('Approval(address,address,uint256)')
    expect(suspiciousBlocks(blocks, [usdc], [log(11n, usdc, approval), log(12n, usdc)])).toEqual([11n])
  })

  it('blocks of other contracts, and blocks without a bloom, are not checked', () => {
    expect(suspiciousBlocks(blocks, [other], [log(12n, other)])).toEqual([])
    expect(suspiciousBlocks([{ number: 13n }], [usdc], [])).toEqual([])
  })
})

describe('splitRange', () => {
  it('covers the range in parts of at most the size', () => {
    expect(splitRange(1n, 5n, 2n)).toEqual([
      [1n, 2n],
      [3n, 4n],
      [5n, 5n],
    ])
    expect(splitRange(7n, 7n, 2000n)).toEqual([[7n, 7n]])
    expect(splitRange(8n, 7n, 2000n)).toEqual([])
  })
})
