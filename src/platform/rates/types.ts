// USD prices of coins. Rates are decimal strings (USD per one whole coin) so money math stays exact;
// a source that cannot give a fresh price throws instead of answering 0.

export interface RateSource {
  readonly kind: 'static' | 'http'
  /**
   * USD per whole coin for every known coin, keyed by coin reference (e.g. `{ usdc: "1" }`): a
   * frozen table, the same object while the rates stand, so that what is worked out from it (the
   * operators' overrides merged in) can be kept until it changes.
   */
  getRates(): Promise<Readonly<Record<string, string>>>
  /** USD per whole coin of one coin; throws RateError UNKNOWN for a coin without a price */
  getRate(reference: string): Promise<string>
}

export type RateErrorCode = 'UNKNOWN' | 'STALE' | 'UNAVAILABLE' | 'INVALID'

/** The feed is down, its data too old, malformed, or the coin has no price. Never a silent 0. */
export class RateError extends Error {
  constructor(
    readonly code: RateErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'RateError'
  }
}
