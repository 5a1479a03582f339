// Where fees are swept: FEE_SWEEP_ADDRESS (every coin) and FEE_SWEEP_ADDRESS_<COIN> (one coin, it
// wins), read by config.ts. There is no default in any mode: a coin without one is not swept.
// Checked once more at start-up against what only the running service knows: each per-coin
// variable must name a configured coin, and no cold address may be an address the platform holds
// keys for (a custodial address, the fee address, the treasury, the gas wallet) or a coin's token
// contract. A problem stops the start like any configuration error (exit status 2).
import { ConfigError } from '../../config.ts'
import type { Executor } from '../../db/index.ts'
import type { ChainAdapter } from '../../platform/chain/types.ts'
import type { KeyStore } from '../settlement/types.ts'

export interface ColdAddress {
  /** lower-case address */
  address: string
  /** the variable it comes from */
  source: string
}

/** The suffix of a coin's variable: `usdc` → `USDC`, `usdc.e` → `USDC_E`. */
export const coinVariable = (reference: string) =>
  `FEE_SWEEP_ADDRESS_${reference.toUpperCase().replace(/[.-]/g, '_')}`

/** Config keys are the lower-cased suffix (`*` for FEE_SWEEP_ADDRESS). */
const keyOf = (reference: string) => coinVariable(reference).slice('FEE_SWEEP_ADDRESS_'.length).toLowerCase()

export class ColdAddresses {
  constructor(
    private readonly configured: Readonly<Record<string, string>>,
    private readonly chain: Pick<ChainAdapter, 'coins' | 'treasury' | 'gasWallet'>,
  ) {}

  /** The cold address of a coin, or null when none is configured. */
  of(coin: string): ColdAddress | null {
    const own = this.configured[keyOf(coin)]
    if (own) return { address: own, source: coinVariable(coin) }
    const all = this.configured['*']
    return all ? { address: all, source: 'FEE_SWEEP_ADDRESS' } : null
  }

  /** Why `address` may not receive a sweep (an address of the platform's own), or null. */
  async refusal(
    ex: Executor,
    address: string,
    keys: Pick<KeyStore, 'byAddress'>,
    feeAddress: string,
  ): Promise<string | null> {
    const a = address.toLowerCase()
    if (a === feeAddress) return 'it is the fee address itself'
    if (a === this.chain.treasury.address.toLowerCase()) return "it is the platform's treasury"
    if (a === this.chain.gasWallet.address.toLowerCase()) return "it is the platform's gas wallet"
    const token = this.chain.coins.find((c) => c.contractAddress?.toLowerCase() === a)
    if (token) return `it is the contract of ${token.symbol}`
    if (await keys.byAddress(ex, a)) return 'it is a custodial address of the platform'
    return null
  }

  /** Start-up check of the configuration (ConfigError listing every problem). */
  async check(ex: Executor, keys: Pick<KeyStore, 'byAddress'>, feeAddress: string): Promise<void> {
    const problems: string[] = []
    const known = new Set(this.chain.coins.map((c) => keyOf(c.reference)))
    for (const [key, address] of Object.entries(this.configured)) {
      const name = key === '*' ? 'FEE_SWEEP_ADDRESS' : `FEE_SWEEP_ADDRESS_${key.toUpperCase()}`
      if (key !== '*' && !known.has(key)) {
        const coins = this.chain.coins.map((c) => coinVariable(c.reference)).join(', ')
        problems.push(`${name} names no configured coin (per-coin variables: ${coins})`)
        continue
      }
      const why = await this.refusal(ex, address, keys, feeAddress)
      if (why) problems.push(`${name} cannot be ${address}: ${why}; give an address outside the platform`)
    }
    if (problems.length > 0) throw new ConfigError(problems)
  }
}
