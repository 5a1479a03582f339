// CONFIRMATIONS=finalized: the watcher credits up to the chain's `finalized` block, as the chain
// answers it (the dev chain, without a consensus layer, answers its latest block). Both drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { balanceOf, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { CONFIRMATIONS: 'finalized' } })
})
afterAll(() => t?.close())

describe('CONFIRMATIONS=finalized', () => {
  it('credits a deposit once its block is finalized', async () => {
    const s = t.app.services
    expect(t.config.confirmations).toBe('finalized')
    const outsider = s.chain.devnet!.accounts[5]!
    await s.chain.devnet!.fund(outsider.address, 'usdc', 100n * USDC)
    const user = await createUser(t)
    await sendFrom(t, outsider, await walletAddress(t, user), 'usdc', 4n * USDC)
    const finalized = await s.chain.confirmedHead('finalized')
    expect(finalized).toBe(await s.chain.blockNumber())
    await s.settlement.watcher.scanNow()
    expect((await s.settlement.watcher.cursor())!.number).toBe(finalized)
    expect(await balanceOf(t, user.id, 'usdc')).toBe(4n * USDC)
  })
})
