// The inspection period: a delivered job completes by itself once its period is over (the escrow
// released to the talent), both parties reminded 3 days and 1 day before; nothing happens when the
// creator answered first (completed, asked for changes) or a party disputed; the scheduled release
// happens once, after a crash between its two halves too. Time moves on the test app's clock.
import { describe, expect, it } from 'vitest'
import { toUnits } from '../escrow/payment-helpers.ts'
import { balanceOf } from '../helpers/money.ts'
import { expectError, expectOk } from '../sdk/helpers.ts'
import { call, workScene } from './helpers.ts'

const W = workScene()
const DAY = 86_400_000

/** Moves the clock on and runs every job that became due. */
async function later(ms: number) {
  W.scene.t.clock.advance(ms)
  await W.settle()
}

const reminders = async (token: string) =>
  expectOk(await W.scene.ctx.sdk.notifications.getAll(token, { type: 'inspection_ending' } as never))
    .notification as { title: string; data: string }[]

const releaseJobs = (collectionId: string) =>
  W.scene.t.database.db
    .selectFrom('jobs')
    .select(['status', 'dedupeKey', 'runAt'])
    .where('kind', '=', 'work.inspection_release')
    .execute()
    .then((rows) => rows.filter((r) => r.dedupeKey?.includes(collectionId)))

/** The talent's payout of a job's escrow, in base units. */
const payoutOf = (q: { collectionAmountCoin: string }) => toUnits(q.collectionAmountCoin, 18)

describe('inspection period', () => {
  it('completes a delivered job by itself after its period, reminding both parties 3 days and 1 day before', async () => {
    const { t, ctx, creator, talent, stranger } = W.scene
    const { id, q } = await W.ongoingJob({ inspectionPeriodDays: 5 })
    expect((await W.job(id)).inspectionPeriodDays).toBe(5)
    expectOk(await W.work(talent, id, 'deliver', { note: 'Done' }))
    const job = await W.job(id)
    const deliveredAt = new Date(job.delivery.deliveredAt).getTime()
    expect(new Date(job.delivery.autoCompleteAt).getTime()).toBe(deliveredAt + 5 * DAY)
    expect(await releaseJobs(id)).toHaveLength(1)

    const talentBefore = await balanceOf(t, talent.id, 'avax')
    await later(2 * DAY + 60_000)
    for (const who of [creator, talent])
      expect((await reminders(who.token)).map((n) => n.title)).toEqual(['Job completes in 3 days'])
    await later(2 * DAY)
    expect((await reminders(creator.token)).map((n) => n.title)).toEqual([
      'Job completes in 1 day',
      'Job completes in 3 days',
    ])
    expect(await reminders(stranger.token)).toEqual([])
    expect((await W.job(id)).status).toBe('ongoing')
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore)

    await later(DAY)
    expect(await W.job(id)).toMatchObject({ status: 'completed', progress: 100 })
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payoutOf(q))
    expect((await W.audits(id)).map((a) => a.action)).toContain('work.auto_completed')
    const done = expectOk(
      await ctx.sdk.notifications.getAll(talent.token, { type: 'job_completed' } as never),
    )
    expect(done.notification.map((n: { data: string }) => n.data)).toContain(id)
    // the creator can no longer answer the delivery
    expectError(await W.work(creator, id, 'request-changes'), 409, 'JOB_CLOSED')
  })

  it('waits 14 days by default and takes only 1 to 60 days at creation', async () => {
    const { ctx, creator, talent } = W.scene
    const { id } = await W.ongoingJob()
    expectOk(await W.work(talent, id, 'deliver'))
    const job = await W.job(id)
    expect(job.inspectionPeriodDays).toBe(14)
    expect(
      new Date(job.delivery.autoCompleteAt).getTime() - new Date(job.delivery.deliveredAt).getTime(),
    ).toBe(14 * DAY)
    for (const days of [0, 61, 1.5, '7'])
      expectError(
        await ctx.sdk.collection.create(creator.token, {
          type: 'job',
          name: 'Bad period',
          description: 'x',
          inspectionPeriodDays: days,
        } as never),
        400,
        'VALIDATION_ERROR',
      )
    // the period is set at creation only
    expectError(
      await call(W.scene.t, creator, 'PATCH', `/v1/collection/${id}`, { inspectionPeriodDays: 3 }),
      400,
      'VALIDATION_ERROR',
    )
    await later(14 * DAY + 60_000)
    expect((await W.job(id)).status).toBe('completed')
  })

  it('does nothing once the creator asked for changes; a new delivery starts a new period', async () => {
    const { t, creator, talent } = W.scene
    const { id, q } = await W.ongoingJob({ inspectionPeriodDays: 2 })
    expectOk(await W.work(talent, id, 'deliver'))
    expectOk(await W.work(creator, id, 'request-changes'))
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    await later(3 * DAY)
    expect(await W.job(id)).toMatchObject({ status: 'ongoing', recipientCompletedJob: false })
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore)
    expect((await reminders(creator.token)).filter((n) => n.data === id)).toEqual([])
    expectOk(await W.work(talent, id, 'deliver'))
    expect(await releaseJobs(id)).toHaveLength(2)
    await later(DAY)
    expect((await W.job(id)).status).toBe('ongoing')
    await later(DAY + 60_000)
    expect((await W.job(id)).status).toBe('completed')
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payoutOf(q))
  })

  it('does nothing while a dispute is open', async () => {
    const { t, talent } = W.scene
    const { id } = await W.ongoingJob({ inspectionPeriodDays: 1 })
    expectOk(await W.work(talent, id, 'deliver'))
    expectOk(await W.work(talent, id, 'dispute', { reason: 'No answer from the creator' }))
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    await later(2 * DAY)
    expect((await W.job(id)).status).toBe('disputed')
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore)
  })

  it('releases once when the creator completed first, and once after a crash between release and completion', async () => {
    const { t, creator, talent } = W.scene
    // the creator completes before the period ends: the scheduled release finds nothing to do
    const first = await W.ongoingJob({ inspectionPeriodDays: 1 })
    expectOk(await W.work(talent, first.id, 'deliver'))
    expectOk(await W.work(creator, first.id, 'complete'))
    await W.settle()
    const afterManual = await balanceOf(t, talent.id, 'avax')
    await later(2 * DAY)
    expect(await balanceOf(t, talent.id, 'avax')).toBe(afterManual)
    expect((await W.job(first.id)).status).toBe('completed')

    // a run that released the escrow and died before completing the job: the next run completes it
    const second = await W.ongoingJob({ inspectionPeriodDays: 1 })
    expectOk(await W.work(talent, second.id, 'deliver'))
    const job = await W.job(second.id)
    const payload = { collectionId: second.id, deliveredAtMs: new Date(job.delivery.deliveredAt).getTime() }
    const before = await balanceOf(t, talent.id, 'avax')
    await t.app.services.escrow.release(creator.id, second.q.escrowId, { key: `complete:${second.id}` })
    await t.app.services.work.inspection.release(payload)
    await t.app.services.work.inspection.release(payload)
    await later(2 * DAY)
    expect((await W.job(second.id)).status).toBe('completed')
    expect(await balanceOf(t, talent.id, 'avax')).toBe(before + payoutOf(second.q))
    expect((await W.audits(second.id)).filter((a) => a.action === 'work.auto_completed')).toHaveLength(1)
  })
})
