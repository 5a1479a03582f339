// @ts-check
// Showing values: base units as exact decimals (BigInt arithmetic, never floating point), ages,
// times and long ids; and whole coins typed by an operator as base units. The money rules are
// the API's (src/platform/money): test/platform/money/console.test.ts holds them to the same cases.
const decimalsOf = new Map()

/** Remembers each coin's decimals (from the dashboard overview or the coins list). */
export function learnDecimals(coin, decimals) {
  if (coin && Number.isInteger(decimals)) decimalsOf.set(String(coin).toLowerCase(), decimals)
}

export function knownDecimals(coin) {
  return decimalsOf.get(String(coin ?? '').toLowerCase())
}

/** "1234500000000000000" with 18 decimals → "1.2345"; grouped thousands. */
export function units(base, decimals) {
  if (base === undefined || base === null || base === '') return '—'
  let v
  try {
    v = BigInt(base)
  } catch {
    return String(base)
  }
  if (!Number.isInteger(decimals)) return `${v} units`
  const neg = v < 0n
  const digits = (neg ? -v : v).toString().padStart(decimals + 1, '0')
  const int = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const frac = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${neg ? '−' : ''}${int}${frac ? `.${frac}` : ''}`
}

/**
 * "1.25" whole coins → base units as a decimal string, exactly (no floating point). Plain decimals
 * only (the API also takes exponents); trailing zeros never count as decimals, as in the API.
 */
export function toBaseUnits(text, decimals) {
  const m = /^([0-9]+)(?:\.([0-9]*))?$/.exec(String(text).trim())
  if (!m) throw new Error('Enter an amount in whole coins, e.g. 1.25')
  const frac = (m[2] ?? '').replace(/0+$/, '')
  if (frac.length > decimals) throw new Error(`At most ${decimals} decimals`)
  return (BigInt(m[1]) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0')).toString()
}

/** An amount of `coin` in base units, with the coin's symbol. */
export function amount(base, coin, decimals = knownDecimals(coin)) {
  return `${units(base, decimals)} ${String(coin ?? '').toUpperCase()}`.trim()
}

/** Base units as a JavaScript number of whole coins (for plots only). */
export function toNumber(base, decimals) {
  const v = BigInt(base ?? 0)
  const scale = 10n ** BigInt(decimals ?? 0)
  return Number(v / scale) + Number(v % scale) / Number(scale)
}

export function age(seconds) {
  if (seconds === null || seconds === undefined) return '—'
  const s = Math.max(0, Math.round(Number(seconds)))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min`
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`
}

/** Seconds since an ISO time. */
export function since(iso, now = Date.now()) {
  return iso ? (now - new Date(iso).getTime()) / 1000 : null
}

export function time(iso) {
  if (!iso) return '—'
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso)
  const p = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`
}

export function short(id, n = 10) {
  if (!id) return '—'
  const s = String(id)
  return s.length > n + 2 ? `${s.slice(0, n)}…` : s
}
