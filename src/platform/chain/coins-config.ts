// The chain and coin configuration: read from COINS_FILE (production) or the built-in dev chain
// defaults, validated once with every problem reported together.
import { readFileSync } from 'node:fs'
import { getAddress, isAddress, parseGwei } from 'viem'

/** The chain's public data, as SPEC's "RPC configuration" names it. */
export interface ChainSettings {
  rpcName: string
  rpcChainId: string
  rpcUrls: string[]
  blockExplorerUrls: string[]
  rpcNativeCurrency: { name: string; symbol: string; decimals: string }
  /**
   * The address of the platform's proof-of-reserves attestation key, published with the coins so
   * that wallets and users can check snapshots against it (lower case); the service refuses to
   * start when its RESERVES_ATTESTATION_KEY is another one's.
   */
  reservesAttestationAddress?: string
}

export interface CoinSettings {
  name: string
  symbol: string
  reference: string
  icon: string
  decimal: number
  isToken: boolean
  /** required for tokens on an rpc chain; ignored on the devnet, which deploys its own */
  contractAddress: string | null
  order: number
  active: boolean
  /** USD per whole coin, decimal string */
  usdRate: string
  /**
   * The most a send of this coin pays per gas, in wei (`maxFeePerGasGwei` in the file, in gwei):
   * while the network asks more, the send waits instead of paying. Absent: no limit.
   */
  maxFeePerGas?: bigint
}

export interface CoinsConfig {
  chain: ChainSettings
  coins: CoinSettings[]
}

export const DEVNET_CHAIN_ID = 31337

/** The embedded defaults: a native coin modelled on AVAX and a USDC-like token, on chain 31337. */
export function builtinCoinsConfig(): CoinsConfig {
  return {
    chain: {
      rpcName: 'WorkPay Devnet',
      rpcChainId: String(DEVNET_CHAIN_ID),
      rpcUrls: [],
      blockExplorerUrls: [],
      rpcNativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: '18' },
    },
    coins: [
      {
        name: 'Avalanche',
        symbol: 'AVAX',
        reference: 'avax',
        icon: 'https://cryptologos.cc/logos/avalanche-avax-logo.png',
        decimal: 18,
        isToken: false,
        contractAddress: null,
        order: 1,
        active: true,
        usdRate: '25',
      },
      {
        name: 'USD Coin',
        symbol: 'USDC',
        reference: 'usdc',
        icon: 'https://cryptologos.cc/logos/usd-coin-usdc-logo.png',
        decimal: 6,
        isToken: true,
        contractAddress: null,
        order: 2,
        active: true,
        usdRate: '1',
      },
    ],
  }
}

export class CoinsConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid coins configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'CoinsConfigError'
  }
}

const RATE = /^\d{1,30}(\.\d{1,30})?$/
const REFERENCE = /^[a-z0-9][a-z0-9._-]{0,31}$/
const GWEI = /^\d{1,12}(\.\d{1,9})?$/

/** Validates a parsed COINS_FILE document. `requireTokenAddresses` is true for an rpc chain. */
export function parseCoinsConfig(doc: unknown, requireTokenAddresses: boolean): CoinsConfig {
  const problems: string[] = []
  const obj = (v: unknown): Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {}
  const root = obj(doc)
  const c = obj(root.chain)
  const str = (o: Record<string, unknown>, key: string, where: string, def?: string): string => {
    const v = o[key]
    if (typeof v === 'string' && v.trim() !== '') return v.trim()
    if (typeof v === 'number' && Number.isFinite(v)) return String(v)
    if (def !== undefined && v === undefined) return def
    problems.push(`${where}.${key} must be a non-empty string`)
    return ''
  }
  const strings = (o: Record<string, unknown>, key: string, where: string): string[] => {
    const v = o[key] ?? []
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[]
    problems.push(`${where}.${key} must be an array of strings`)
    return []
  }
  const native = obj(c.rpcNativeCurrency)
  const chain: ChainSettings = {
    rpcName: str(c, 'rpcName', 'chain'),
    rpcChainId: str(c, 'rpcChainId', 'chain'),
    rpcUrls: strings(c, 'rpcUrls', 'chain'),
    blockExplorerUrls: strings(c, 'blockExplorerUrls', 'chain'),
    rpcNativeCurrency: {
      name: str(native, 'name', 'chain.rpcNativeCurrency'),
      symbol: str(native, 'symbol', 'chain.rpcNativeCurrency'),
      decimals: str(native, 'decimals', 'chain.rpcNativeCurrency', '18'),
    },
  }
  const attestation = c.reservesAttestationAddress
  if (typeof attestation === 'string' && isAddress(attestation, { strict: false }))
    chain.reservesAttestationAddress = attestation.toLowerCase()
  else if (attestation !== undefined && attestation !== null)
    problems.push('chain.reservesAttestationAddress must be an address')
  if (chain.rpcChainId && !/^[1-9]\d{0,15}$/.test(chain.rpcChainId))
    problems.push('chain.rpcChainId must be a positive integer')

  if (!Array.isArray(root.coins) || root.coins.length === 0) problems.push('coins must be a non-empty array')
  const coins: CoinSettings[] = []
  const seen = new Set<string>()
  for (const [i, raw] of (Array.isArray(root.coins) ? root.coins : []).entries()) {
    const o = obj(raw)
    const where = `coins[${i}]`
    const reference = str(o, 'reference', where).toLowerCase()
    if (reference && !REFERENCE.test(reference))
      problems.push(`${where}.reference must be a lowercase slug (a-z, 0-9, . _ -)`)
    if (seen.has(reference)) problems.push(`${where}.reference "${reference}" is used twice`)
    seen.add(reference)
    const decimal = Number(o.decimal ?? o.decimals)
    if (!Number.isInteger(decimal) || decimal < 0 || decimal > 36)
      problems.push(`${where}.decimal must be an integer from 0 to 36`)
    const isToken = o.isToken === true
    if (o.isToken !== undefined && typeof o.isToken !== 'boolean')
      problems.push(`${where}.isToken must be a boolean`)
    let contractAddress: string | null = null
    if (isToken) {
      const a = o.contractAddress
      if (typeof a === 'string' && isAddress(a, { strict: false })) contractAddress = getAddress(a)
      else if (a !== undefined && a !== null) problems.push(`${where}.contractAddress must be an address`)
      else if (requireTokenAddresses) problems.push(`${where}.contractAddress is required for a token`)
    }
    const rate = o.usdRate ?? o.usd_rate
    const usdRate = typeof rate === 'number' ? String(rate) : typeof rate === 'string' ? rate.trim() : ''
    if (!RATE.test(usdRate)) problems.push(`${where}.usdRate must be a non-negative decimal number`)
    const order = o.order === undefined ? i + 1 : Number(o.order)
    if (!Number.isInteger(order)) problems.push(`${where}.order must be an integer`)
    if (o.active !== undefined && typeof o.active !== 'boolean')
      problems.push(`${where}.active must be a boolean`)
    let maxFeePerGas: bigint | undefined
    const cap = o.maxFeePerGasGwei
    if (cap !== undefined && cap !== null) {
      const text = typeof cap === 'number' ? String(cap) : typeof cap === 'string' ? cap.trim() : ''
      if (!GWEI.test(text) || Number(text) === 0)
        problems.push(
          `${where}.maxFeePerGasGwei must be a positive decimal number (gwei, at most 9 decimals)`,
        )
      else maxFeePerGas = parseGwei(text)
    }
    coins.push({
      name: str(o, 'name', where),
      symbol: str(o, 'symbol', where),
      reference,
      icon: typeof o.icon === 'string' ? o.icon : '',
      decimal,
      isToken,
      contractAddress,
      order,
      active: o.active !== false,
      usdRate,
      ...(maxFeePerGas === undefined ? {} : { maxFeePerGas }),
    })
  }
  if (coins.filter((x) => !x.isToken).length > 1)
    problems.push('at most one coin may be native (isToken false)')
  if (problems.length > 0) throw new CoinsConfigError(problems)
  return { chain, coins }
}

/** Reads COINS_FILE when given, else the built-in defaults. */
export function loadCoinsConfig(file: string | undefined, requireTokenAddresses: boolean): CoinsConfig {
  if (!file) return builtinCoinsConfig()
  let doc: unknown
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'))
  } catch (err) {
    throw new CoinsConfigError([`COINS_FILE ${file} cannot be read as JSON: ${(err as Error).message}`])
  }
  return parseCoinsConfig(doc, requireTokenAddresses)
}
