// The replay side of the devnet journal's compaction: a `devnet_state` entry (devnet-compaction.ts)
// set on a node at the end of its bootstrap, the accounts the bootstrap left empty paid in bulk by
// a small contract (contracts/Distributor.sol), then empty blocks up to the base.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import {
  type Address,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  keccak256,
  stringToHex,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import {
  type DevnetState,
  lower,
  mappingSlot,
  num,
  SLOT_ALLOWANCES,
  SLOT_BALANCES,
  SLOT_TOTAL_SUPPLY,
  storageKey,
} from './devnet-compaction.ts'
import type { Eip1193 } from './rpc-server.ts'

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
