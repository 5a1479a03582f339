// Amounts an escrow cannot hold or give, each with its own code, on a real database and the dev
// chain: a price that would need more than 15 digits of the coin (422 ESCROW_AMOUNT_OUT_OF_RANGE,
// nothing created), and a share for the talent larger than what remains in escrow (422
// SPLIT_EXCEEDS_ESCROW, nothing paid). The second is the escrow's own guard: the dispute routes
// refuse a split that does not add up first (DISPUTE_SPLIT_MISMATCH), so it is reached when what
// remains shrank between their check and the split; the test asks the escrow directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError } from '../../src/http/errors.ts'
import { adminEnv, createAdmin, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { balanceOf } from '../helpers/money.ts'
import { expectConsistent, expectError, overpaidEscrowPartlyReleased, tomorrow } from './helpers.ts'

let t: TestApp
const run = runId()

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
})
afterAll(async () => {
  await t?.close()
})

const escrowCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('escrows')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

describe('an escrow price the coin cannot express', () => {
  it('is refused with ESCROW_AMOUNT_OUT_OF_RANGE and creates nothing', async () => {
    const admin = await createAdmin(t, run)
    const [payer, receiver] = [await createUser(t), await createUser(t)]
    // A coin worth a billionth of a dollar: 10,000,000 USD would be 10^16 AVAX.
    expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/admin/coins/avax/rate',
        token: admin.token,
        payload: { reason: 'Testing a worthless coin', usdRate: '0.000000001' },
      }),
    )
    const body = {
      title: 'Build a landing page',
      description: 'One page, responsive',
      amount: 10_000_000,
      coin: 'avax',
      dueDate: tomorrow(t),
      isPrivate: false,
      isFundingRequest: false,
      receiverId: receiver.id,
    }
    try {
      const before = await escrowCount()
      const res = await t.req({
        method: 'POST',
        url: '/v1/escrow/initiate',
        token: payer.token,
        payload: body,
      })
      expectError(res, 422, 'ESCROW_AMOUNT_OUT_OF_RANGE')
      expect(res.json().data.errors).toEqual([
        { path: '/amount', message: expect.stringContaining('too large') },
      ])
      expect(await escrowCount()).toBe(before)
    } finally {
      // Back to the configured rate, whatever happened.
      expectOk(
        await t.req({
          method: 'POST',
          url: '/v1/admin/coins/avax/rate',
          token: admin.token,
          payload: { reason: 'Back to the configured rate', usdRate: null },
        }),
      )
    }
    // The same price at a rate the coin can express is quoted.
    const ok = await t.req({ method: 'POST', url: '/v1/escrow/initiate', token: payer.token, payload: body })
    expect(ok.statusCode, ok.body).toBe(200)
  })
})

describe('a split of an escrow', () => {
  let payer: TestUser
  let receiver: TestUser
  beforeAll(async () => {
    ;[payer, receiver] = [await createUser(t), await createUser(t)]
  })

  it('giving the talent more than remains is refused with SPLIT_EXCEEDS_ESCROW and pays nothing', async () => {
    // 50 USD paid, 12.5 released: 37.5 remain.
    const { q } = await overpaidEscrowPartlyReleased(t, payer, receiver, 11)
    const receiverBefore = await balanceOf(t, receiver.id, 'avax')
    const payerBefore = await balanceOf(t, payer.id, 'avax')
    const err = await t.app.services.escrow
      .settleSplit(q.escrowId, { ownerCents: 3751n }, `split:${q.escrowId}`)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(err).toBeInstanceOf(AppError)
    expect(err).toMatchObject({ statusCode: 422, code: 'SPLIT_EXCEEDS_ESCROW' })
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore)
    expect(await balanceOf(t, payer.id, 'avax')).toBe(payerBefore)

    // Exactly what remains is split: all of it to the talent.
    const done = await t.app.services.escrow.settleSplit(
      q.escrowId,
      { ownerCents: 3750n },
      `split2:${q.escrowId}`,
    )
    expect(done).toMatchObject({ outcome: 'paid', ownerCents: 3750n, creatorCents: 0n })
    await expectConsistent(t)
  })
})
