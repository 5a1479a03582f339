// What an ERC-20 contract says of itself (decimals, name, symbol), read before a token is added at
// run time: a contract without `decimals()` is no token the platform can hold.
import { type Address, erc20Abi, type PublicClient } from 'viem'
import { toChainError } from './errors.ts'
import { ChainError, type TokenInfo } from './types.ts'

export async function readTokenInfo(client: PublicClient, token: Address): Promise<TokenInfo> {
  // A node error other than an outage means the contract has no such function (or no code).
  const read = async <F extends 'decimals' | 'name' | 'symbol'>(functionName: F) => {
    try {
      return await client.readContract({ address: token, abi: erc20Abi, functionName })
    } catch (err) {
      const e = toChainError(err, `read ${functionName}`)
      if (e.code === 'UNAVAILABLE') throw e
      return null
    }
  }
  const decimals = await read('decimals')
  if (decimals === null)
    throw new ChainError('REJECTED', 'the contract does not answer decimals() as an ERC-20 token does')
  const [name, symbol] = await Promise.all([read('name'), read('symbol')])
  return { address: token, decimals: Number(decimals), name, symbol }
}
