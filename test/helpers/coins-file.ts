// The COINS_FILE a production deployment on a given devnet would have: the built-in chain, and
// its coins at the token addresses the devnet deployed. Free of the test runner, so the bench can
// use it too.
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'

export function coinsFileOf(node: ChainAdapter): string {
  return JSON.stringify({
    chain: builtinCoinsConfig().chain,
    coins: node.coins.map((c) => ({
      name: c.name,
      symbol: c.symbol,
      reference: c.reference,
      icon: c.icon,
      decimal: c.decimals,
      isToken: c.isToken,
      ...(c.contractAddress ? { contractAddress: c.contractAddress } : {}),
      order: c.order,
      active: c.active,
      usdRate: c.usdRate,
    })),
  })
}
