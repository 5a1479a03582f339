// Contract wallets (EIP-1271): the wallet contract on the configured chain decides whether a
// signature is its own. A minimal wallet owned by one key is compiled and deployed on the dev chain.
import solc from 'solc'
import { type Address, createWalletClient, custom, getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const WALLET_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OwnerWallet {
  address public owner;
  constructor(address o) { owner = o; }
  function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
    if (sig.length != 65) return 0xffffffff;
    bytes32 r; bytes32 s; uint8 v;
    assembly {
      r := calldataload(sig.offset)
      s := calldataload(add(sig.offset, 32))
      v := byte(0, calldataload(add(sig.offset, 64)))
    }
    return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
  }
}`

const WALLET_ABI = [
  { type: 'constructor', inputs: [{ name: 'o', type: 'address' }], stateMutability: 'nonpayable' },
] as const

function compileWallet(): Hex {
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'OwnerWallet.sol': { content: WALLET_SOURCE } },
        settings: { outputSelection: { '*': { '*': ['evm.bytecode.object'] } } },
      }),
    ),
  )
  const errs = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error')
  if (errs.length) throw new Error(JSON.stringify(errs))
  return `0x${out.contracts['OwnerWallet.sol'].OwnerWallet.evm.bytecode.object}`
}

let t: TestApp
let chain: ChainAdapter
const owner = privateKeyToAccount(generatePrivateKey())
let walletAddress: Address

beforeAll(async () => {
  t = await createTestApp()
  chain = t.app.services.chain
  const payer = chain.devnet!.accounts[0]!
  const deployer = createWalletClient({
    account: privateKeyToAccount(payer.privateKey),
    chain: chain.chain,
    transport: custom({ request: (args) => chain.client.request(args as never) }),
  })
  const hash = await deployer.deployContract({
    abi: WALLET_ABI,
    bytecode: compileWallet(),
    args: [owner.address],
  })
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  walletAddress = getAddress(receipt.contractAddress!)
})
afterAll(() => t?.close())

const post = (url: string, payload: unknown) => t.req({ method: 'POST', url, payload: payload as object })

async function requestMessage(account: string) {
  const res = await post('/v1/auth/web3/request', { account })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as { message: string; tempToken: { token: string } }
}

describe('contract wallets (EIP-1271)', () => {
  it('writes the configured chain id into the message', async () => {
    const { message } = await requestMessage(walletAddress)
    expect(message).toContain(`Chain ID: ${chain.chainId}`)
  })

  it('accepts a signature the wallet contract approves, and refuses one it does not', async () => {
    const { message, tempToken } = await requestMessage(walletAddress)
    const stranger = await privateKeyToAccount(generatePrivateKey()).signMessage({ message })
    const bad = await post('/v1/auth/web3/validate', { signedMessage: stranger, tempToken: tempToken.token })
    expect(bad.statusCode, bad.body).toBe(401)
    expect(bad.json().data.code).toBe('INVALID_CREDENTIALS')

    const signedMessage = await owner.signMessage({ message })
    const res = await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token })
    expect(res.statusCode, res.body).toBe(202)
    expect(res.json().data.account).toBe(walletAddress)
    const row = await t.database.db
      .selectFrom('users')
      .select(['accountType', 'web3Address'])
      .where('web3Address', '=', walletAddress.toLowerCase())
      .executeTakeFirstOrThrow()
    expect(row.accountType).toBe('web3')
  })

  it('answers 503 when the chain cannot be asked, and the message can be sent again later', async () => {
    const { message, tempToken } = await requestMessage(walletAddress)
    const signedMessage = await owner.signMessage({ message })
    // A key-held wallet needs no chain.
    const eoa = privateKeyToAccount(generatePrivateKey())
    const m = await requestMessage(eoa.address)
    chain.devnet!.setDown(true)
    try {
      const down = await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token })
      expect(down.statusCode, down.body).toBe(503)
      expect(down.json()).toEqual({
        status: 'error',
        message: expect.any(String),
        data: { code: 'UNAVAILABLE' },
      })
      const ok = await post('/v1/auth/web3/validate', {
        signedMessage: await eoa.signMessage({ message: m.message }),
        tempToken: m.tempToken.token,
      })
      expect(ok.statusCode, ok.body).toBe(202)
    } finally {
      chain.devnet!.setDown(false)
    }
    const res = await post('/v1/auth/web3/validate', { signedMessage, tempToken: tempToken.token })
    expect(res.statusCode, res.body).toBe(202)
  })
})
