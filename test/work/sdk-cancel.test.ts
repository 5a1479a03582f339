// Cancelling a job the public SDK's way: its UpdateCollectionDto has no cancellationReason, so
// `updateCollection(id, { ...SAME, status: 'cancelled' })` cancels with the reason `No reason given`; the
// rest of cancellation (who may, from where, the escrow's refund) is unchanged.
import { describe, expect, it } from 'vitest'
import { NO_REASON_GIVEN } from '../../src/modules/work/service-updates.ts'
import { toUnits } from '../escrow/payment-helpers.ts'
import { balanceOf } from '../helpers/money.ts'
import { expectError, expectOk } from '../sdk/helpers.ts'
import { workScene } from './helpers.ts'

const W = workScene()
/** The SDK's UpdateCollectionDto requires name and description: the job's own, unchanged. */
const SAME = { name: 'Landing page', description: 'One responsive page' }

describe('PATCH /v1/collection/{id} { status: cancelled } without a reason', () => {
  it('cancels a funded job through the SDK and returns its escrow to the creator', async () => {
    const { ctx, t, creator, talent } = W.scene
    const { id, q } = await W.ongoingJob()
    const before = await balanceOf(t, creator.id, 'avax')
    // the talent may not cancel, with or without a reason
    expectError(
      await ctx.sdk.collection.updateCollection(talent.token, id, { ...SAME, status: 'cancelled' }),
      403,
      'FORBIDDEN',
    )
    const res = expectOk(
      await ctx.sdk.collection.updateCollection(creator.token, id, { ...SAME, status: 'cancelled' }),
    )
    expect(res.status).toBe('cancelled')
    await W.settle()
    expect(await balanceOf(t, creator.id, 'avax')).toBe(before + toUnits(q.amountToPay, 18))
    expect(await W.job(id)).toMatchObject({ status: 'cancelled', cancellationReason: NO_REASON_GIVEN })
    // once cancelled, again is 409 like any step on a closed job
    expectError(
      await ctx.sdk.collection.updateCollection(creator.token, id, { ...SAME, status: 'cancelled' }),
      409,
      'JOB_ALREADY_IN_STATE',
    )
  })

  it('keeps a reason that is sent, refuses a blank one, and still refuses cancelling a delivered job', async () => {
    const { ctx, creator, talent } = W.scene
    const pending = await W.postJob()
    expectError(
      await ctx.sdk.collection.updateCollection(creator.token, pending, {
        status: 'cancelled',
        cancellationReason: '',
      } as never),
      400,
      'VALIDATION_ERROR',
    )
    expectOk(
      await ctx.sdk.collection.updateCollection(creator.token, pending, {
        status: 'cancelled',
        cancellationReason: 'Plans changed',
      } as never),
    )
    expect((await W.job(pending)).cancellationReason).toBe('Plans changed')

    const { id } = await W.ongoingJob()
    expectOk(await ctx.sdk.collection.updateCollection(talent.token, id, { ...SAME, status: 'completed' }))
    expectError(
      await ctx.sdk.collection.updateCollection(creator.token, id, { ...SAME, status: 'cancelled' }),
      422,
      'JOB_STATE_MISMATCH',
    )
    await W.settle()
  })
})
