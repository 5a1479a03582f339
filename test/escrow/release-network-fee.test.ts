// The network fee of a release in a token: the gas of its legs, in wei of the native coin, turned
// into token units of the same USD value through each coin's own rate (a rate's text may carry
// any number of decimals, as a price feed gives it).
import { beforeAll, describe, expect, it } from 'vitest'
import { NATIVE_TRANSFER_GAS, TOKEN_TRANSFER_GAS } from '../../src/modules/settlement/module.ts'
import { parseUnits } from '../../src/platform/money/index.ts'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { expectConsistent, settleAll } from './helpers.ts'
import { paymentScene } from './payment-helpers.ts'

let t: TestApp
let creator: TestUser
const S = paymentScene()
const { chain, release, paidCollection, legsOf } = S
beforeAll(() => {
  ;({ t, creator } = S.scene)
})

describe('a token release’s network fee', () => {
  it('is the legs’ gas at the native coin’s USD value, whatever the decimals of the rates’ text', async () => {
    const { id, q } = await paidCollection('100', 'usdc')
    // the same price of 1 USD written with four decimals: a token rate with more decimals than
    // the native coin's must not shift the conversion by powers of ten
    await t.database.db.updateTable('escrows').set({ rate: '1.0000' }).where('id', '=', q.escrowId).execute()
    const native = chain().coins.find((c) => !c.isToken)!
    const nativeRate = await t.app.services.escrow.rate(native.reference)
    expect(nativeRate).not.toContain('.')
    // no block is mined between this estimate and the release's own
    const fees = await chain().estimateFees()
    const price = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
    const r = await release(creator, { collection: id, amount: 100 })
    expect(r.statusCode, r.body).toBe(200)
    expect(r.json().data.final).toBe(true)

    const legs = await legsOf(q.escrowId)
    const network = BigInt(legs.find((l) => l.kind === 'fee')!.amount)
    const platform = BigInt(legs.find((l) => l.kind === 'platformFee')!.amount)
    const gas = TOKEN_TRANSFER_GAS * 4n + NATIVE_TRANSFER_GAS // the final part's four legs, and the top-up
    const wei = gas * price
    // wei × rate / 10^18 USD ≤ network × 1 / 10^6 USD, less than one unit more (rounded up)
    expect(native.decimals).toBe(18)
    expect(network * 10n ** 18n >= wei * BigInt(nativeRate) * 10n ** 6n).toBe(true)
    expect((network - 1n) * 10n ** 18n < wei * BigInt(nativeRate) * 10n ** 6n).toBe(true)
    expect(network + platform).toBe(parseUnits(q.expectedFee, 6))
    expect(platform > 0n).toBe(true)
    await settleAll(t)
    await expectConsistent(t)
  })
})
