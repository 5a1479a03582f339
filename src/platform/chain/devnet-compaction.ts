// Compaction of the devnet journal: the journal's entries up to a block every reader is done with
// are replaced by one `devnet_state` entry holding the state at that block (what the service can
// enumerate: every touched account's balance and nonce, the dev tokens' total supplies, balances
// and allowances), so that a start replays the state and a few entries instead of every call ever
// made. The state is read from the live node at the base block (EDR keeps every block's state);
// the replay sets it on the bootstrap blocks and mines empty blocks up to the same height, so block
// numbers never go back. Blocks at and above the base get new hashes at the next start (their
// parents differ): the entry says so (`rebase`) until the service has recorded the new hashes.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  decodeFunctionResult,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  getContractAddress,
  type Hex,
  keccak256,
  stringToHex,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Eip1193 } from './rpc-server.ts'
import type { DevnetJournalEntry } from './types.ts'

export const STATE_METHOD = 'devnet_state'
const TIMESTAMP = 'evm_setNextBlockTimestamp'
const TRANSFER_TOPIC = keccak256(stringToHex('Transfer(address,address,uint256)'))
const APPROVAL_TOPIC = keccak256(stringToHex('Approval(address,address,uint256)'))
/** DevToken's storage layout (contracts/DevToken.sol): totalSupply, balanceOf, allowance */
const SLOT_TOTAL_SUPPLY = 2n
const SLOT_BALANCES = 3n
const SLOT_ALLOWANCES = 4n
/** the system contracts the EVM itself writes every block (EIP-4788 beacon roots, EIP-2935 history) */
const SYSTEM_CONTRACTS = new Set([
  '0x000f3df6d732807ef1319fb7b8bb8522d0beac02',
  '0x0000f90827f1c53a10cb7a02335b175320002935',
])

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

const num = (hex: unknown) => BigInt(hex as Hex)
const lower = (a: string) => a.toLowerCase()
const pad = (v: bigint) => v.toString(16).padStart(64, '0')
const mappingSlot = (key: string, slot: bigint) => `0x${pad(num(key))}${pad(slot)}` as Hex

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

const storageKey = (holder: string, slot: bigint): Hex => keccak256(mappingSlot(holder, slot))

/**
 * Sets a captured state on a node at the end of its bootstrap, then mines empty blocks up to the
 * base block (the last one at the base's recorded time), and sets the next block's base fee, so
 * that the entries after the state replay as they first ran.
 */
export async function applyState(node: Eip1193, state: DevnetState): Promise<void> {
  const base = BigInt(state.base)
  let head = num(await node.request({ method: 'eth_blockNumber' }))
  if (base <= head) throw new Error(`devnet state at block ${base} is not above the bootstrap (${head})`)
  // Accounts the bootstrap left empty are paid in a few blocks below the base; the others (the dev
  // accounts, the platform's keys, the coinbase, any account with a nonce) are set one by one.
  const paid: [Address, bigint][] = []
  const oneByOne: DevnetState['accounts'] = []
  const bootstrapped = state.bootstrapped ? new Set(state.bootstrapped.map(lower)) : undefined
  for (const a of state.accounts) {
    const [address, balance, nonce] = a
    const empty =
      nonce === 0 &&
      (bootstrapped
        ? !bootstrapped.has(lower(address))
        : num(await node.request({ method: 'eth_getBalance', params: [address, 'latest'] })) === 0n &&
          num(await node.request({ method: 'eth_getTransactionCount', params: [address, 'latest'] })) === 0n)
    if (!empty) oneByOne.push(a)
    else if (num(balance) > 0n) paid.push([address, num(balance)])
  }
  const chunks = Math.ceil(paid.length / PAY_CHUNK)
  if (chunks > 0 && head + BigInt(chunks) + 2n <= base) head = await payAll(node, paid)
  else for (const [address, balance] of paid) oneByOne.push([address, toHex(balance), 0])
  for (const [address, balance, nonce] of oneByOne) {
    await node.request({ method: 'hardhat_setBalance', params: [address, balance] })
    if (nonce > 0) await node.request({ method: 'hardhat_setNonce', params: [address, toHex(nonce)] })
  }
  for (const t of state.tokens) {
    const set = (slot: Hex, value: Hex) =>
      node.request({
        method: 'hardhat_setStorageAt',
        params: [t.address, slot, toHex(num(value), { size: 32 })],
      })
    // every holder's balance is written, zero included, so that the bootstrap's mints are overwritten
    for (const [holder, value] of t.balances) await set(storageKey(holder, SLOT_BALANCES), value)
    await set(toHex(SLOT_TOTAL_SUPPLY, { size: 32 }), t.totalSupply)
    for (const [owner, spender, value] of t.allowances)
      await set(keccak256(mappingSlot(spender, num(storageKey(owner, SLOT_ALLOWANCES)))), value)
  }
  await node.request({ method: 'hardhat_setCoinbase', params: [state.coinbase] })
  const empty = base - head - 1n
  if (empty > 0n) {
    const latest = (await node.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
      timestamp: Hex
    }
    await node.request({ method: 'evm_setNextBlockTimestamp', params: [toHex(num(latest.timestamp) + 1n)] })
    await node.request({ method: 'hardhat_mine', params: [toHex(empty), '0x1'] })
  }
  await node.request({ method: 'evm_mine', params: [toHex(state.baseTime)] })
  await node.request({ method: 'hardhat_setNextBlockBaseFeePerGas', params: [state.nextBaseFee] })
  if (!state.automine) await node.request({ method: 'evm_setAutomine', params: [false] })
}

export const isState = (e: DevnetJournalEntry | undefined): e is { method: string; params: [DevnetState] } =>
  e?.method === STATE_METHOD

const DISTRIBUTOR = JSON.parse(
  readFileSync(fileURLToPath(new URL('./contracts/Distributor.json', import.meta.url)), 'utf8'),
) as { abi: readonly unknown[]; bytecode: Hex }
/** addresses paid by one transaction of the distributor (within the node's gas cap per transaction) */
const PAY_CHUNK = 350
/** the distributor's sender: a key of its own, funded for the payments and emptied after */
const PAYER = privateKeyToAccount(keccak256(stringToHex('devnet state distributor')))
/** where the replay of a state deploys the distributor (its sender's first transaction) */
export const DISTRIBUTOR_ADDRESS = getContractAddress({ from: PAYER.address, nonce: 0n })

/**
 * Pays every address its balance through the distributor contract, a few hundred per block (a
 * block costs the node about the memory of one `hardhat_setBalance`); returns the new head. The
 * blocks are mined a second apart after the bootstrap's, below the base.
 */
async function payAll(node: Eip1193, paid: [Address, bigint][]): Promise<bigint> {
  const total = paid.reduce((sum, [, v]) => sum + v, 0n)
  await node.request({ method: 'hardhat_setBalance', params: [PAYER.address, toHex(total + 10n ** 21n)] })
  await node.request({ method: 'hardhat_impersonateAccount', params: [PAYER.address] })
  const nextBlock = async () => {
    const latest = (await node.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as {
      timestamp: Hex
    }
    await node.request({ method: 'evm_setNextBlockTimestamp', params: [toHex(num(latest.timestamp) + 1n)] })
  }
  try {
    const nonce = Number(
      num(await node.request({ method: 'eth_getTransactionCount', params: [PAYER.address, 'latest'] })),
    )
    const distributor = getContractAddress({ from: PAYER.address, nonce: BigInt(nonce) })
    await nextBlock()
    await node.request({
      method: 'eth_sendTransaction',
      params: [
        {
          from: PAYER.address,
          data: encodeDeployData({ abi: DISTRIBUTOR.abi, bytecode: DISTRIBUTOR.bytecode }),
        },
      ],
    })
    for (let i = 0; i < paid.length; i += PAY_CHUNK) {
      const chunk = paid.slice(i, i + PAY_CHUNK)
      await nextBlock()
      await node.request({
        method: 'eth_sendTransaction',
        params: [
          {
            from: PAYER.address,
            to: distributor,
            gas: toHex(16_000_000n),
            value: toHex(chunk.reduce((sum, [, v]) => sum + v, 0n)),
            data: encodeFunctionData({
              abi: DISTRIBUTOR.abi,
              functionName: 'pay',
              args: [chunk.map(([a]) => a), chunk.map(([, v]) => v)],
            }),
          },
        ],
      })
    }
  } finally {
    await node.request({ method: 'hardhat_stopImpersonatingAccount', params: [PAYER.address] })
  }
  await node.request({ method: 'hardhat_setBalance', params: [PAYER.address, '0x0'] })
  return num(await node.request({ method: 'eth_blockNumber' }))
}
