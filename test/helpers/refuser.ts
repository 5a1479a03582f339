// A contract that refuses every payment of the native coin: a real refusal by the chain (the node
// answers "reverted" to eth_estimateGas), for tests of a send that fails and counts its failures.
import solc from 'solc'
import { type Address, createWalletClient, custom, getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { TestApp } from './app.ts'

const REFUSER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Refuser {
  receive() external payable { revert("no thanks"); }
}`

let bytecode: Hex | undefined

function compiled(): Hex {
  if (bytecode) return bytecode
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Refuser.sol': { content: REFUSER } },
        settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
      }),
    ),
  )
  const errs = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errs.length) throw new Error(JSON.stringify(errs))
  bytecode = `0x${out.contracts['Refuser.sol'].Refuser.evm.bytecode.object}`
  return bytecode
}

/** Deploys a Refuser from dev account `payerIndex` and returns its address. */
export async function deployRefuser(t: TestApp, payerIndex = 5): Promise<Address> {
  const chain = t.app.services.chain
  const payer = chain.devnet!.accounts[payerIndex]!
  const deployer = createWalletClient({
    account: privateKeyToAccount(payer.privateKey as Hex),
    chain: chain.chain,
    transport: custom({ request: (args) => chain.client.request(args as never) }),
  })
  const hash = await deployer.deployContract({ abi: [], bytecode: compiled() })
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  return getAddress(receipt.contractAddress!)
}

/**
 * Makes the dev chain's node refuse what every send asks first, the network's fees
 * (eth_feeHistory answered "method not available", as some providers answer it): each send fails
 * before it is signed, and as the node's own answer, not an outage, it counts against the
 * transfer's limit of failures. Returns the undo.
 */
export function refuseSends(t: TestApp): () => void {
  const devnet = t.app.services.chain.devnet!
  devnet.refuse('eth_feeHistory', {
    code: -32601,
    message: 'the method eth_feeHistory does not exist/is not available',
  })
  return () => devnet.refuse('eth_feeHistory', null)
}
