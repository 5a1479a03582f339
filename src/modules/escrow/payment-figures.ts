// An escrow's price, fee and total as the client SDK's payment answers name them, shared by the
// collection payment API (coin amounts as decimal strings) and direct deposit orders (as JSON
// numbers): only the formatting differs, passed in.
import { centsToNumber } from '../../platform/money/index.ts'
import type { EscrowRow } from './repo.ts'

/** The figures of an escrow's quote; `coin` formats base units of the escrow's coin, `usd` cents. */
export function paymentFigures<C, U>(
  row: EscrowRow,
  coin: (units: bigint, decimals: number) => C,
  usd: (cents: bigint) => U,
) {
  const d = row.decimals
  return {
    collectionAmount: centsToNumber(BigInt(row.escrowCents)),
    collectionAmountCoin: coin(BigInt(row.coinEscrowAmount), d),
    expectedFee: coin(BigInt(row.expectedFee), d),
    amountToPay: coin(BigInt(row.amountToPay), d),
    usdFee: usd(BigInt(row.usdFeeCents)),
    usdAmount: usd(BigInt(row.usdAmountCents)),
    feePercentage: Number(row.feePercent),
    rate: Number(row.rate),
  }
}
