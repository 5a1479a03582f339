// KYC_REQUIRED_FOR in withdrawals: an amount above a coin's threshold is refused with 403
// IDENTITY_VERIFICATION_REQUIRED (and nothing held or queued) until the identity is verified; an
// amount at or below it, or another coin, goes through; the day's withdrawals of a coin count
// together, so splitting one does not pass under the threshold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, freshAddress, fundUser, settleAll, snapshot, USDC } from '../withdrawals/helpers.ts'
import { png, sendImage, startSession } from './helpers.ts'

let t: TestApp
const run = runId()
let user: TestUser

beforeAll(async () => {
  t = await createTestApp({
    env: { ...adminEnv(run), KYC_REQUIRED_FOR: 'withdrawal:avax>0.5,withdrawal:usdc>5' },
  })
  user = await createUser(t)
  await fundUser(t, 0, user, 'avax', 3n * AVAX)
  await fundUser(t, 1, user, 'usdc', 10n * USDC)
})
afterAll(() => t?.close())

const withdraw = (amount: number, coin = 'avax') =>
  t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin, address: freshAddress(), password: user.password },
  })

describe('withdrawals over the threshold need a verified identity', () => {
  it('refuses until verified, then accepts', async () => {
    const before = await snapshot(t)
    const refused = await withdraw(1)
    expectError(refused, 403, 'IDENTITY_VERIFICATION_REQUIRED')
    expect(refused.json()).toMatchObject({
      message: expect.stringContaining('more than 0.5 AVAX'),
      data: { action: 'withdrawal', coin: 'avax', above: '0.5', kycStatus: null },
    })
    expectError(await withdraw(6, 'usdc'), 403, 'IDENTITY_VERIFICATION_REQUIRED')
    expect(await snapshot(t)).toEqual(before)

    // At or below the threshold: no identity needed.
    expectOk(await withdraw(0.5))
    expectOk(await withdraw(5, 'usdc'))
    await settleAll(t)
    // Split into parts: the day's withdrawals count together (0.5 + 0.1 AVAX is over 0.5).
    const split = await withdraw(0.1)
    expectError(split, 403, 'IDENTITY_VERIFICATION_REQUIRED')
    expect(split.json().message).toContain('more than 0.5 AVAX (in 24 hours)')
    expectError(await withdraw(0.2, 'usdc'), 403, 'IDENTITY_VERIFICATION_REQUIRED')

    // A session in progress is not a verified identity.
    const started = await startSession(t, user)
    expectOk(await sendImage(t, user, 'face', png(4, 1)))
    expectOk(await sendImage(t, user, 'document-front', png(4, 2)))
    const pending = await withdraw(1)
    expectError(pending, 403, 'IDENTITY_VERIFICATION_REQUIRED')
    expect(pending.json().data.kycStatus).toBe('submitted')

    const admin = await createAdmin(t, run)
    expectOk(
      await t.req({
        method: 'POST',
        url: `/v1/admin/verifications/${started.verification.vendorData}/approve`,
        token: admin.token,
        payload: { reason: 'Documents checked' },
      }),
    )
    const accepted = expectOk(await withdraw(1))
    expect(accepted.withdrawalId).toEqual(expect.any(String))
    await settleAll(t)
    const statuses = await t.database.db
      .selectFrom('withdrawals')
      .select(['status'])
      .where('ownerId', '=', user.id)
      .execute()
    expect(statuses.map((s) => s.status).sort()).toEqual(['completed', 'completed', 'completed'])
  })
})
