// The gas a caller can plan on before it asks for transfers (an escrow release charges its network
// fee from this): the planned gas of some transfers of a coin and one gas top-up, at the chain's
// current most per gas, in the native coin's base units. One fee estimate per quote.
import { errors } from '../../../http/errors.ts'
import type { ChainAdapter, FeeEstimate } from '../../../platform/chain/types.ts'

/** Gas planned per transfer of a token (an ERC-20 transfer uses ~35–65k). */
export const TOKEN_TRANSFER_GAS = 100_000n
export const NATIVE_TRANSFER_GAS = 21_000n

export interface TransferFeeQuote {
  /** the quoted coin */
  coin: { reference: string; decimals: number; isToken: boolean }
  /** the coin the gas is paid in (undefined when the chain has no native coin configured) */
  native: { reference: string; decimals: number } | undefined
  /** the most `transfers` transfers of the coin and one gas top-up may cost, in native base units */
  gasCost(transfers: number): bigint
}

/** The quote of transfers of `coin` at the chain's current fees (503 when it cannot be reached). */
export async function quoteTransferFee(chain: ChainAdapter, coin: string): Promise<TransferFeeQuote> {
  const c = chain.coin(coin)
  const native = chain.coins.find((x) => !x.isToken)
  let fees: FeeEstimate
  try {
    fees = await chain.estimateFees()
  } catch {
    throw errors.unavailable('The chain is unreachable right now; try again shortly')
  }
  const price = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
  const perTransfer = c.isToken ? TOKEN_TRANSFER_GAS : NATIVE_TRANSFER_GAS
  return {
    coin: { reference: c.reference, decimals: c.decimals, isToken: c.isToken },
    native: native ? { reference: native.reference, decimals: native.decimals } : undefined,
    gasCost: (transfers) => (perTransfer * BigInt(transfers) + NATIVE_TRANSFER_GAS) * price,
  }
}
