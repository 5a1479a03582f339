// Money units, the one place for them: coin amounts in base units, USD in cents, rates, the
// rounding rules and splits. Every module parses, formats and converts money through here.
export * from './decimal.ts'
export * from './rounding.ts'
export * from './split.ts'
export * from './units.ts'
export * from './usd.ts'
