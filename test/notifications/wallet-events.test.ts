// The owner's own money events notify the owner: a deposit credited and a withdrawal sent each
// once; value the platform sends to the address itself (gas for the withdrawal) is no deposit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll, withdrawAvax } from '../withdrawals/helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

describe('wallet notifications', () => {
  it('a deposit and a withdrawal notify their owner once each, and a gas top-up not at all', async () => {
    const user = await createUser(t)
    await fundUser(t, 1, user, 'avax', AVAX)
    const { withdrawalId } = await withdrawAvax(t, user, 0.1, freshAddress())
    await settleAll(t)
    await settleAll(t)

    const res = await t.req({ method: 'GET', url: '/v1/notifications/', token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    const list = res.json().data.notification as { type: string; description: string; data: string }[]
    expect(list.map((n) => n.type).sort()).toEqual(['new_deposit', 'new_withdrawal'])
    expect(list.find((n) => n.type === 'new_deposit')!.description).toContain('1 AVAX')
    expect(list.find((n) => n.type === 'new_withdrawal')!.data).toBe(withdrawalId)
  })
})
