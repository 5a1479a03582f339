// The two rate sources: static prices from the coin configuration, and an HTTP price feed with a
// cache (TTL) and a staleness limit. Rates are decimal strings; a number from the feed is turned
// into its exact decimal text, never used in arithmetic.
import { expandDecimal } from '../money/index.ts'
import { RateError, type RateSource } from './types.ts'

const DECIMAL = /^\d{1,30}(\.\d{1,30})?$/

/** 1e-7 → "0.0000001"; 35.1 → "35.1". Throws for negative, non-finite or exponent overflow. */
function toDecimal(value: unknown): string | undefined {
  let text: string
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined
    text = value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })
  } else if (typeof value === 'string') text = value.trim()
  else return undefined
  if (!DECIMAL.test(text)) return undefined
  // canonical form: no leading zeros, no trailing fractional zeros
  return expandDecimal(text)
}

export function staticRates(rates: Record<string, string>): RateSource {
  const table = new Map(Object.entries(rates).map(([k, v]) => [k.toLowerCase(), toDecimal(v)]))
  for (const [k, v] of table)
    if (v === undefined) throw new RateError('INVALID', `static rate of ${k} is invalid`)
  // The same (frozen) object at every call: a wallet read asks for the rates each time.
  const all = Object.freeze(Object.fromEntries(table)) as Readonly<Record<string, string>>
  return {
    kind: 'static',
    async getRates() {
      return all
    },
    async getRate(reference) {
      const r = table.get(String(reference).toLowerCase())
      if (r === undefined) throw new RateError('UNKNOWN', `no USD rate for ${reference}`)
      return r
    },
  }
}

export interface HttpRatesOptions {
  url: string
  /** coin references to keep from the feed's answer (others are ignored); a function is asked at
   * every read, so coins added at run time are priced by the feed too */
  references: string[] | (() => Iterable<string>)
  /** reuse a fetched answer this long (ms) */
  ttlMs: number
  /** after a failed refresh, an answer up to this old (ms) is still served; older → STALE */
  maxAgeMs: number
  /** per request (ms), default 5000 */
  timeoutMs?: number
  now?: () => number
  fetch?: typeof fetch
}

/**
 * A price feed over HTTP answering `{ "<reference>": <usd number or decimal string>, ... }`.
 * Within `ttlMs` the cached answer is used; after that one refresh runs (concurrent callers share
 * it). If the refresh fails, the cached answer is used while younger than `maxAgeMs`; past that
 * the source throws RateError STALE (or UNAVAILABLE when nothing was ever fetched).
 */
export function httpRates(opts: HttpRatesOptions): RateSource {
  const now = opts.now ?? Date.now
  const doFetch = opts.fetch ?? fetch
  const fixed = Array.isArray(opts.references)
    ? new Set(opts.references.map((r) => r.toLowerCase()))
    : undefined
  const wanted = (): Set<string> =>
    fixed ?? new Set([...(opts.references as () => Iterable<string>)()].map((r) => r.toLowerCase()))
  let cache: { at: number; rates: Record<string, string> } | undefined
  let inflight: Promise<Record<string, string>> | undefined

  async function fetchRates(): Promise<Record<string, string>> {
    let body: unknown
    try {
      const res = await doFetch(opts.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
      })
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      body = await res.json()
    } catch (err) {
      throw new RateError('UNAVAILABLE', 'the price feed cannot be reached', { cause: err })
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new RateError('INVALID', 'the price feed answered something other than an object')
    // Every valid price is kept (a coin added before the next refresh is priced from this answer);
    // an invalid price of a wanted coin makes the whole answer invalid.
    const want = wanted()
    const rates: Record<string, string> = {}
    for (const [k, v] of Object.entries(body)) {
      const ref = k.toLowerCase()
      const d = toDecimal(v)
      if (d !== undefined) rates[ref] = d
      else if (want.has(ref))
        throw new RateError('INVALID', `the price feed gave an invalid price for ${ref}`)
    }
    return rates
  }

  /** the prices of the wanted coins (the same object while the answer and the coins stand) */
  let picked:
    | { from: Record<string, string>; coins: string; rates: Readonly<Record<string, string>> }
    | undefined
  const only = (rates: Record<string, string>) => {
    const want = wanted()
    const coins = [...want].join(',')
    if (picked?.from !== rates || picked.coins !== coins)
      picked = {
        from: rates,
        coins,
        rates: Object.freeze(Object.fromEntries(Object.entries(rates).filter(([ref]) => want.has(ref)))),
      }
    return picked.rates
  }

  async function current(): Promise<Record<string, string>> {
    const t = now()
    if (cache && t - cache.at < opts.ttlMs) return cache.rates
    inflight ??= fetchRates()
      .then((rates) => {
        cache = { at: now(), rates }
        return rates
      })
      .finally(() => {
        inflight = undefined
      })
    try {
      return await inflight
    } catch (err) {
      if (cache && now() - cache.at <= opts.maxAgeMs) return cache.rates
      if (cache)
        throw new RateError('STALE', 'the price feed is unreachable and the last prices are too old', {
          cause: err,
        })
      throw err
    }
  }

  return {
    kind: 'http',
    getRates: async () => only(await current()),
    async getRate(reference) {
      const rates = only(await current())
      const r = rates[String(reference).toLowerCase()]
      if (r === undefined) throw new RateError('UNKNOWN', `no USD rate for ${reference}`)
      return r
    },
  }
}
