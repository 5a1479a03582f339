// The coins an adapter knows: the configured ones from the start, and tokens added at run time by
// operators. One array and two maps, changed in place, so that everything holding them (transfer
// scans, balances) sees a coin from the moment it is added.
import { type Address, getAddress, isAddress } from 'viem'
import { type ChainCoin, ChainError } from './types.ts'

export interface CoinRegistry {
  /** every known coin, in `order` */
  readonly coins: ChainCoin[]
  /** token coins by lower-case contract address */
  readonly byToken: Map<string, ChainCoin>
  /** a coin by reference (any case); ChainError UNKNOWN_COIN */
  coin(reference: string): ChainCoin
  /** adds a token coin; the same reference and contract again answers the known coin */
  add(coin: ChainCoin): ChainCoin
}

const REFERENCE = /^[a-z0-9][a-z0-9._-]{0,31}$/

export function coinRegistry(initial: readonly ChainCoin[]): CoinRegistry {
  const coins = [...initial].sort((a, b) => a.order - b.order)
  const byRef = new Map(coins.map((c) => [c.reference, c]))
  const byToken = new Map(
    coins.filter((c) => c.contractAddress).map((c) => [c.contractAddress!.toLowerCase(), c]),
  )

  function coin(reference: string): ChainCoin {
    const c = typeof reference === 'string' ? byRef.get(reference.toLowerCase()) : undefined
    if (!c) throw new ChainError('UNKNOWN_COIN', `unknown coin "${String(reference)}"`)
    return c
  }

  function add(input: ChainCoin): ChainCoin {
    if (!input.isToken || !input.contractAddress || !isAddress(input.contractAddress, { strict: false }))
      throw new ChainError('INVALID_ARGUMENT', 'only an ERC-20 token with its contract address can be added')
    if (!REFERENCE.test(input.reference))
      throw new ChainError('INVALID_ARGUMENT', 'a coin reference is a lowercase slug (a-z, 0-9, . _ -)')
    if (!Number.isInteger(input.decimals) || input.decimals < 0 || input.decimals > 36)
      throw new ChainError('INVALID_ARGUMENT', 'decimals must be an integer from 0 to 36')
    const contractAddress: Address = getAddress(input.contractAddress)
    const token = contractAddress.toLowerCase()
    const known = byRef.get(input.reference)
    if (known) {
      if (known.contractAddress?.toLowerCase() === token) return known
      throw new ChainError('INVALID_ARGUMENT', `the coin reference "${input.reference}" is taken`)
    }
    const other = byToken.get(token)
    if (other)
      throw new ChainError('INVALID_ARGUMENT', `the contract is the coin "${other.reference}" already`)
    const c: ChainCoin = { ...input, contractAddress }
    // after every coin of the same or a lower order: the configured order stays as it was
    const at = coins.findIndex((x) => x.order > c.order)
    coins.splice(at === -1 ? coins.length : at, 0, c)
    byRef.set(c.reference, c)
    byToken.set(token, c)
    return c
  }

  return { coins, byToken, coin, add }
}
