// The capture side of the devnet journal's compaction: where the journal splits at a base block,
// and the state at that block read from the live node (EDR keeps every block's state), as a
// `devnet_state` entry (devnet-compaction.ts). What the service cannot enumerate refuses.
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  stringToHex,
  toHex,
} from 'viem'
import {
  CompactionRefused,
  type DevnetState,
  lower,
  num,
  SLOT_BALANCES,
  STATE_METHOD,
  storageKey,
} from './devnet-compaction.ts'
import type { Eip1193 } from './rpc-server.ts'
import type { DevnetJournalEntry } from './types.ts'

const TIMESTAMP = 'evm_setNextBlockTimestamp'
const TRANSFER_TOPIC = keccak256(stringToHex('Transfer(address,address,uint256)'))
const APPROVAL_TOPIC = keccak256(stringToHex('Approval(address,address,uint256)'))
/** the system contracts the EVM itself writes every block (EIP-4788 beacon roots, EIP-2935 history) */
const SYSTEM_CONTRACTS = new Set([
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  '0x0000f90827f1c53a10cb7a02335b175320002935',
])

const BALANCE_OF = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'a', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'o', type: 'address' },
      { name: 's', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'totalSupply',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const

async function call(node: Eip1193, to: Address, data: Hex, block: Hex): Promise<bigint> {
  const out = (await node.request({ method: 'eth_call', params: [{ to, data }, block] })) as Hex
  return decodeFunctionResult({ abi: BALANCE_OF, functionName: 'balanceOf', data: out }) as bigint
}

/** Where the journal splits: entries before `index` are the past the state stands for. */
export interface Split {
  base: bigint
  index: number
}

/**
 * The journal position just after the call that mined block `base`: every mining call of this
 * devnet mines one block, recorded by a timestamp entry before it (`hardhat_mine` is journaled as
 * one `evm_mine` per block), so block `prevBase + k` is the k-th timestamp entry after the state
 * entry. Refused when the prefix holds what a state cannot carry or a count cannot follow.
 */
export function findSplit(entries: DevnetJournalEntry[], prevBase: bigint, base: bigint): Split {
  let block = prevBase
  if (base <= prevBase) throw new CompactionRefused(`block ${base} is not above the last base ${prevBase}`)
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!
    if (e.method === STATE_METHOD) continue
    refuseIn(e)
    if (e.method !== TIMESTAMP) continue
    block++
    if (block === base) {
      if (i + 1 >= entries.length) throw new CompactionRefused('the journal ends before the base block')
      return { base, index: i + 2 }
    }
  }
  throw new CompactionRefused(`the journal does not reach block ${base}`)
}

function refuseIn(e: DevnetJournalEntry) {
  switch (e.method) {
    case 'evm_snapshot':
    case 'evm_revert':
      throw new CompactionRefused(`${e.method} in the history (a revert could go below the base)`)
    case 'hardhat_setCode':
    case 'hardhat_setStorageAt':
      throw new CompactionRefused(`${e.method} by hand: storage the service cannot enumerate`)
    case 'hardhat_impersonateAccount':
    case 'hardhat_setMinGasPrice':
      throw new CompactionRefused(`${e.method} in the history is not carried`)
  }
}

/** Addresses a journal entry names directly (senders, recipients, accounts set by hand). */
function entryAddresses(e: DevnetJournalEntry, into: Set<string>) {
  if (e.method === 'hardhat_setBalance' || e.method === 'hardhat_setNonce')
    into.add(lower(String(e.params[0])))
  if (e.method === 'hardhat_setCoinbase') into.add(lower(String(e.params[0])))
}

export interface CaptureInput {
  node: Eip1193
  entries: DevnetJournalEntry[]
  split: Split
  /** the state entry the journal starts with, if any */
  previous: DevnetState | undefined
  /** the height of the bootstrap (blocks the devnet mines at every start, not journaled) */
  bootBlocks: bigint
  /** accounts always carried: the dev accounts, the deployer, the platform keys */
  known: Address[]
  tokens: Address[]
}

/** Reads the state at `split.base` from the live node (which keeps every block's state). */
export async function captureState(input: CaptureInput): Promise<DevnetState> {
  const { node, split, previous, tokens } = input
  const at = toHex(split.base)
  const from = previous ? BigInt(previous.base) + 1n : input.bootBlocks + 1n
  const tokenSet = new Set(tokens.map(lower))
  const touched = new Set<string>(input.known.map(lower))
  for (const e of input.entries.slice(0, split.index)) entryAddresses(e, touched)
  const coinbase = lower((await node.request({ method: 'eth_coinbase' })) as string)
  touched.add(coinbase)

  for (let n = from; n <= split.base; n++) {
    const block = (await node.request({ method: 'eth_getBlockByNumber', params: [toHex(n), true] })) as {
      miner: string
      transactions: { from: string; to: string | null; type: Hex }[]
    }
    touched.add(lower(block.miner))
    for (const tx of block.transactions) {
      if (tx.to === null) throw new CompactionRefused(`a contract was deployed in block ${n}`)
      if (num(tx.type) === 4n) throw new CompactionRefused(`a code delegation was set in block ${n}`)
      touched.add(lower(tx.from))
      touched.add(lower(tx.to))
    }
  }

  const accounts = new Map<string, [Address, Hex, number]>()
  for (const a of previous?.accounts ?? []) accounts.set(lower(a[0]), a)
  for (const address of touched) {
    if (tokenSet.has(address) || SYSTEM_CONTRACTS.has(address)) continue
    const code = (await node.request({ method: 'eth_getCode', params: [address, at] })) as Hex
    if (code !== '0x') throw new CompactionRefused(`${address} holds code the service did not deploy`)
    const balance = num(await node.request({ method: 'eth_getBalance', params: [address, at] }))
    const nonce = Number(
      num(await node.request({ method: 'eth_getTransactionCount', params: [address, at] })),
    )
    accounts.set(address, [getAddress(address), toHex(balance), nonce])
  }

  const out: DevnetState['tokens'] = []
  for (const token of tokens) {
    const prev = previous?.tokens.find((t) => lower(t.address) === lower(token))
    const holders = new Set<string>((prev?.balances ?? []).map((b) => lower(b[0])))
    const pairs = new Map<string, [string, string]>()
    for (const [o, s] of prev?.allowances ?? []) pairs.set(`${lower(o)}:${lower(s)}`, [lower(o), lower(s)])
    const logs = (await node.request({
      method: 'eth_getLogs',
      params: [{ address: token, fromBlock: toHex(from), toBlock: at }],
    })) as { topics: Hex[] }[]
    // the bootstrap's mints are below `from` on the first compaction
    if (!previous) {
      for (const l of (await node.request({
        method: 'eth_getLogs',
        params: [{ address: token, fromBlock: '0x0', toBlock: toHex(from - 1n) }],
      })) as { topics: Hex[] }[])
        logs.push(l)
    }
    const topicAddress = (t: Hex | undefined) => lower(`0x${(t ?? '').slice(-40)}`)
    for (const log of logs) {
      if (log.topics[0] === TRANSFER_TOPIC) {
        holders.add(topicAddress(log.topics[1]))
        holders.add(topicAddress(log.topics[2]))
      } else if (log.topics[0] === APPROVAL_TOPIC) {
        const o = topicAddress(log.topics[1])
        const s = topicAddress(log.topics[2])
        pairs.set(`${o}:${s}`, [o, s])
      }
    }
    holders.delete('0x0000000000000000000000000000000000000000')
    const balances: [Address, Hex][] = []
    for (const h of holders) {
      const v = await call(
        node,
        token,
        encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [h as Address] }),
        at,
      )
      balances.push([getAddress(h), toHex(v)])
    }
    const allowances: [Address, Address, Hex][] = []
    for (const [o, s] of pairs.values()) {
      const v = await call(
        node,
        token,
        encodeFunctionData({
          abi: BALANCE_OF,
          functionName: 'allowance',
          args: [o as Address, s as Address],
        }),
        at,
      )
      if (v > 0n) allowances.push([getAddress(o), getAddress(s), toHex(v)])
    }
    const totalSupply = await call(
      node,
      token,
      encodeFunctionData({ abi: BALANCE_OF, functionName: 'totalSupply' }),
      at,
    )
    // the layout the replay writes must be the contract's: checked on a holder
    const probe = balances.find((b) => num(b[1]) > 0n)
    if (probe) {
      const stored = await node.request({
        method: 'eth_getStorageAt',
        params: [token, storageKey(probe[0], SLOT_BALANCES), at],
      })
      if (num(stored) !== num(probe[1]))
        throw new CompactionRefused(`token ${token}: unexpected storage layout`)
    }
    out.push({ address: getAddress(token), totalSupply: toHex(totalSupply), balances, allowances })
  }

  const baseBlock = (await node.request({ method: 'eth_getBlockByNumber', params: [at, false] })) as {
    timestamp: Hex
  }
  const next = (await node.request({
    method: 'eth_getBlockByNumber',
    params: [toHex(split.base + 1n), false],
  })) as { baseFeePerGas: Hex } | null
  const pending =
    next ??
    ((await node.request({ method: 'eth_getBlockByNumber', params: ['pending', false] })) as {
      baseFeePerGas: Hex
    })
  return {
    base: Number(split.base),
    baseTime: Number(num(baseBlock.timestamp)),
    nextBaseFee: pending.baseFeePerGas,
    coinbase: getAddress(coinbase),
    automine: automineAt(input.entries.slice(0, split.index), previous),
    accounts: [...accounts.values()],
    bootstrapped: [...new Set([...input.known.map(lower), coinbase, ...tokens.map(lower)])].map((a) =>
      getAddress(a),
    ),
    tokens: out,
    rebase: true,
  }
}

function automineAt(prefix: DevnetJournalEntry[], previous: DevnetState | undefined): boolean {
  let on = previous?.automine ?? true
  for (const e of prefix) if (e.method === 'evm_setAutomine') on = e.params[0] === true
  return on
}
