// Writing a coin an operator adds at run time: serialised per chain, refused when its reference,
// symbol or contract is a coin's already, announced on `coins_changed` at commit.
import type { Executor } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { coinClashes, insertAddedCoin, lockChainRow, nextDisplayOrder, saveCoinSetting } from './repo.ts'

/** A token an operator adds at run time (its contract checked on chain before). */
export interface NewCoin {
  reference: string
  symbol: string
  name: string
  icon: string
  contractAddress: string
  decimals: number
  active: boolean
  /** an operator's static USD rate, or null: none (the feed's price, if any) */
  usdRate: string | null
}

/** Inserts the coin (last in display order) and the operator's rate, if any, in `tx`. */
export async function insertNewCoin(
  tx: Executor,
  c: NewCoin,
  at: { by: string; rpcChainId: string; now: Date },
): Promise<void> {
  const { rpcChainId, by, now } = at
  await lockChainRow(tx, rpcChainId)
  const clash = (await coinClashes(tx, { ...c, rpcChainId }))[0]
  if (clash) {
    const what =
      clash.reference === c.reference
        ? `the reference "${c.reference}"`
        : clash.contractAddress?.toLowerCase() === c.contractAddress.toLowerCase()
          ? 'the contract'
          : `the symbol ${c.symbol}`
    throw errors.named('COIN_EXISTS', `The coin "${clash.reference}" has ${what} already`)
  }
  await insertAddedCoin(tx, {
    reference: c.reference,
    name: c.name,
    symbol: c.symbol,
    icon: c.icon,
    contractAddress: c.contractAddress,
    decimal: c.decimals,
    rpcChainId,
    active: c.active,
    order: await nextDisplayOrder(tx, rpcChainId),
    // no configured rate: a rate given is the operator's setting, changed like any other
    usdRate: '0',
    addedBy: by,
    now,
  })
  if (c.usdRate !== null)
    await saveCoinSetting(tx, { reference: c.reference, usdRate: c.usdRate, updatedBy: by, updatedAt: now })
}
