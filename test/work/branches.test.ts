// The other ways a job goes: apply → accept; cancelled before funding (an escrow awaiting payment
// returns what it received); cancelled once funded (the escrow back in the creator's wallet, in
// full or with a share for the talent); a dispute settled by both parties; a dispute decided by an
// arbiter. Balances are checked to the base unit and the ledger against the chain after each step.
import { describe, expect, it } from 'vitest'
import { Application, Dispute } from '../../src/modules/work/schemas.ts'
import { toUnits } from '../escrow/payment-helpers.ts'
import { AVAX, balanceOf, expectConsistent, sendFrom } from '../helpers/money.ts'
import { expectError, expectOk, expectShape, upload } from '../sdk/helpers.ts'
import { call, workScene } from './helpers.ts'

const W = workScene()
const sum = (rows: { amount: string }[]) => rows.reduce((s, r) => s + BigInt(r.amount), 0n)

describe('apply → accept', () => {
  it('assigns the applicant whose application the creator accepts, at the price asked', async () => {
    const { t, creator, talent, other } = W.scene
    const id = await W.postJob({ paymentFee: 80 })
    const a1 = await call(t, other, 'POST', `/v1/collection/${id}/applications`, {
      message: 'I can do it',
      amount: 120,
    })
    expect(a1.code, JSON.stringify(a1)).toBe(200)
    expectShape(Application, a1.data, 'the application')
    expect(a1.data).toMatchObject({
      status: 'pending',
      amount: 120,
      applicant: { _id: other.id },
      data: { _id: id },
    })
    const a2 = expectOk(
      await call(t, talent, 'POST', `/v1/collection/${id}/applications`, { message: 'Me too' }),
    )
    expect(a2.amount).toBeNull()
    const list = expectOk(await call(t, creator, 'GET', `/v1/collection/${id}/applications`))
    expect(list).toMatchObject({ total: 2, page: 1, pages: 1, limit: 12 })
    expect(list.data.map((a: { _id: string }) => a._id)).toEqual([a2._id, a1.data._id])
    expect((await W.job(id)).applications).toEqual([a1.data._id, a2._id])

    const accepted = expectOk(await call(t, creator, 'POST', `/v1/applications/${a1.data._id}/accept`))
    expect(accepted).toMatchObject({ status: 'accepted' })
    expect(typeof accepted.decidedAt).toBe('string')
    expect(await W.job(id)).toMatchObject({
      status: 'waiting',
      owners: [other.id],
      inviteAccepted: true,
      paymentFee: 120,
    })
    const mine = expectOk(await call(t, talent, 'GET', '/v1/applications'))
    expect(mine.data.map((a: { status: string }) => a.status)).toEqual(['expired'])
    expect(expectOk(await call(t, talent, 'GET', `/v1/applications/${a2._id}`)).status).toBe('expired')
    expect((await W.audits(id)).map((a) => a.action)).toEqual([
      'work.application_sent',
      'work.application_sent',
      'work.talent_assigned',
      'work.application_accepted',
    ])
  })
})

describe('cancellation', () => {
  it('closes an unfunded job; an escrow awaiting payment returns what it received to the creator’s wallet', async () => {
    const { ctx, t, creator, talent, other } = W.scene
    // without an escrow: it just closes, its pending invite expires
    const plain = await W.postJob()
    const invite = expectOk(
      await ctx.sdk.invite.sendInvite(creator.token, { recipient: other.id, collection: plain }),
    )
    expectOk(await W.work(creator, plain, 'cancel', { reason: 'No longer needed' }))
    expect(await W.job(plain)).toMatchObject({ status: 'cancelled', cancellationReason: 'No longer needed' })
    expect(expectOk(await ctx.sdk.invite.getAnInvite(other.token, invite._id)).status).toBe('expired')

    // hired, an escrow partly paid, then cancelled
    const id = await W.postJob()
    await W.hire(id)
    const q = expectOk(await ctx.sdk.payment.create(creator.token, { coin: 'avax', collection: id }))
    await sendFrom(t, W.outsider(), q.address, 'avax', AVAX)
    await t.app.services.settlement.watcher.scanNow()
    expect(expectOk(await ctx.sdk.payment.validate(creator.token, { collection: id })).status).toBe('waiting')
    const before = await balanceOf(t, creator.id, 'avax')
    expectOk(
      await ctx.sdk.collection.updateCollection(creator.token, id, {
        status: 'cancelled',
        cancellationReason: 'Changed plans',
      } as never),
    )
    await W.settle()
    expect(await balanceOf(t, creator.id, 'avax')).toBe(before + AVAX)
    expect(await balanceOf(t, talent.id, 'avax')).toBe(0n)
    const legs = await W.legsOf(q.escrowId)
    expect(legs.map((l) => [l.kind, l.status, l.amount])).toEqual([['refund', 'completed', AVAX.toString()]])
    const job = await W.job(id)
    expect(job).toMatchObject({ status: 'cancelled', cancellationReason: 'Changed plans', escrowPaid: false })
    expect(job.escrowReleased).toBeUndefined()
    // a cancelled job cannot be funded again
    expectError(
      await ctx.sdk.payment.create(creator.token, { coin: 'avax', collection: id }),
      409,
      'JOB_NOT_FUNDABLE',
    )
  })

  it('returns a funded job’s whole escrow (price and fee) to the creator’s wallet', async () => {
    const { ctx, t, creator, talent } = W.scene
    const { id, q } = await W.ongoingJob()
    const creatorBefore = await balanceOf(t, creator.id, 'avax')
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    const res = await W.work(creator, id, 'cancel', { reason: 'The talent vanished' })
    expect(res.code, JSON.stringify(res)).toBe(200)
    expect(res.data).toMatchObject({ status: 'cancelled', cancellationReason: 'The talent vanished' })
    // frozen until the refund is queued: the creator cannot release it instead
    expectError(
      await ctx.sdk.payment.release(creator.token, { collection: id, amount: 10 }),
      422,
      'JOB_IN_DISPUTE',
    )
    await W.settle()
    const paid = toUnits(q.amountToPay, 18)
    expect(await balanceOf(t, creator.id, 'avax')).toBe(creatorBefore + paid)
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore)
    expect((await W.legsOf(q.escrowId)).map((l) => [l.kind, l.amount])).toEqual([['refund', paid.toString()]])
    await t.app.services.settlement.watcher.scanNow()
    expect(expectOk(await ctx.sdk.payment.validate(creator.token, { collection: id })).status).toBe(
      'cancelled',
    )
    expect(await W.job(id)).toMatchObject({
      status: 'cancelled',
      escrowReleased: { creatorReleased: true, creatorAmount: 100, ownerReleased: false, ownerAmount: 0 },
    })
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)
  })

  it('pays the talent the share the creator grants and returns the rest', async () => {
    const { t, creator, talent } = W.scene
    const { id, q } = await W.ongoingJob()
    const creatorBefore = await balanceOf(t, creator.id, 'avax')
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    expectOk(await W.work(creator, id, 'cancel', { reason: 'Half done is enough', paymentPercentage: 25 }))
    await W.settle()
    const legs = await W.legsOf(q.escrowId)
    const payout = sum(legs.filter((l) => l.kind === 'payout'))
    const fees = sum(legs.filter((l) => l.kind === 'fee' || l.kind === 'platformFee'))
    const refund = sum(legs.filter((l) => l.kind === 'refund'))
    expect(payout).toBe(AVAX) // 25 % of 4 AVAX
    expect(fees).toBe(AVAX / 20n) // 25 % of the 0.2 AVAX fee
    expect(payout + fees + refund).toBe(toUnits(q.amountToPay, 18))
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payout)
    expect(await balanceOf(t, creator.id, 'avax')).toBe(creatorBefore + refund)
    expect((await W.job(id)).escrowReleased).toEqual({
      creatorReleased: true,
      creatorAmount: 75,
      ownerReleased: true,
      ownerAmount: 25,
    })
  })
})

describe('disputes', () => {
  it('freezes the escrow, then pays the split both parties accepted', async () => {
    const { ctx, t, creator, talent, stranger } = W.scene
    const { id, q } = await W.ongoingJob()
    expectOk(await W.work(talent, id, 'deliver', { note: 'Here it is' }))
    const evidence = await upload(ctx, { ...talent, firstName: 'Tala', lastName: 'Talent' }, 'private')
    const raised = await W.work(talent, id, 'dispute', {
      reason: 'No answer for two weeks',
      evidence: [evidence._id],
    })
    expect(raised.code, JSON.stringify(raised)).toBe(200)
    expectShape(Dispute, raised.data, 'the dispute')
    expect(raised.data).toMatchObject({
      status: 'open',
      raisedBy: talent.id,
      evidence: [evidence._id],
      escrowAmount: 100,
      proposal: null,
    })
    expect(await W.job(id)).toMatchObject({ status: 'disputed', issue: 'No answer for two weeks' })
    // frozen: no release, no completion, no cancellation
    expectError(
      await ctx.sdk.payment.release(creator.token, { collection: id, amount: 10 }),
      422,
      'JOB_IN_DISPUTE',
    )
    expectError(await W.work(creator, id, 'complete'), 422, 'JOB_STATE_MISMATCH')
    expectError(await W.work(creator, id, 'cancel', { reason: 'x' }), 422, 'JOB_STATE_MISMATCH')
    expectError(await call(t, stranger, 'GET', `/v1/collection/${id}/dispute`), 404, 'NOT_FOUND')

    const split = { creatorAmount: 30, ownerAmount: 70 }
    expectError(await W.work(talent, id, 'dispute/accept', split), 422, 'DISPUTE_NO_PROPOSAL') // nothing proposed yet
    expectError(
      await W.work(creator, id, 'dispute/proposal', { creatorAmount: 30, ownerAmount: 60 }),
      422,
      'DISPUTE_SPLIT_MISMATCH',
    )
    const proposed = expectOk(await W.work(creator, id, 'dispute/proposal', split))
    expect(proposed.proposal).toMatchObject({ proposedBy: creator.id, creatorAmount: 30, ownerAmount: 70 })
    expectError(await W.work(creator, id, 'dispute/accept', split), 403, 'FORBIDDEN')
    expectError(
      await W.work(talent, id, 'dispute/accept', { creatorAmount: 20, ownerAmount: 80 }),
      409,
      'DISPUTE_PROPOSAL_MISMATCH',
    )
    const creatorBefore = await balanceOf(t, creator.id, 'avax')
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    const settled = expectOk(await W.work(talent, id, 'dispute/accept', split))
    expect(settled).toMatchObject({
      status: 'settling',
      resolution: 'agreement',
      creatorAmount: 30,
      ownerAmount: 70,
    })
    expectError(await W.work(talent, id, 'dispute/accept', split), 409, 'DISPUTE_SETTLED')
    expect(await W.job(id)).toMatchObject({
      status: 'resolved',
      escrowReleased: { creatorReleased: false, creatorAmount: 30, ownerReleased: false, ownerAmount: 70 },
    })
    await W.settle()
    const legs = await W.legsOf(q.escrowId)
    const payout = sum(legs.filter((l) => l.kind === 'payout'))
    const refund = sum(legs.filter((l) => l.kind === 'refund'))
    expect(payout).toBe((4n * AVAX * 70n) / 100n)
    expect(payout + refund + sum(legs.filter((l) => l.kind === 'fee' || l.kind === 'platformFee'))).toBe(
      toUnits(q.amountToPay, 18),
    )
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payout)
    expect(await balanceOf(t, creator.id, 'avax')).toBe(creatorBefore + refund)
    expect(expectOk(await call(t, creator, 'GET', `/v1/collection/${id}/dispute`)).status).toBe('settled')
    expect((await W.job(id)).escrowReleased).toEqual({
      creatorReleased: true,
      creatorAmount: 30,
      ownerReleased: true,
      ownerAmount: 70,
    })
    await t.app.services.settlement.watcher.scanNow()
    expect(expectOk(await ctx.sdk.payment.validate(creator.token, { collection: id })).status).toBe(
      'released',
    )
    // a settled dispute can be reviewed
    expectOk(
      await ctx.sdk.review.addReview(creator.token, {
        collectionId: id,
        receiver: talent.id,
        rating: 2,
        review: 'Late',
      }),
    )
    expect((await W.audits(id)).map((a) => a.action).slice(-6)).toEqual([
      'work.delivered',
      'work.dispute_raised',
      'work.dispute_proposed',
      'work.dispute_settled',
      'work.escrow_split_paid',
      'work.reviewed',
    ])
  })

  it('pays the split an arbiter decides (the admin role only)', async () => {
    const { t, creator, talent, stranger, other } = W.scene
    const { id, q } = await W.ongoingJob()
    // a milestone was released before the dispute: the split covers what remains
    expectOk(await W.scene.ctx.sdk.payment.release(creator.token, { collection: id, amount: 20 }))
    await W.settle()
    expectOk(await W.work(creator, id, 'dispute', { reason: 'The page does not load' }))
    const disputes = t.app.services.work.disputes
    const decide = (userId: string, body: { creatorAmount: number; ownerAmount: number; note?: string }) =>
      disputes.decide(userId, id, body)
    await expect(decide(stranger.id, { creatorAmount: 40, ownerAmount: 40 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    })
    await expect(decide(creator.id, { creatorAmount: 40, ownerAmount: 40 })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    })
    await t.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', other.id).execute()
    await expect(decide(other.id, { creatorAmount: 50, ownerAmount: 50 })).rejects.toMatchObject({
      code: 'DISPUTE_SPLIT_MISMATCH',
    })
    const creatorBefore = await balanceOf(t, creator.id, 'avax')
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    const decided = await decide(other.id, { creatorAmount: 60, ownerAmount: 20, note: 'Partly delivered' })
    expect(decided).toMatchObject({
      resolution: 'arbiter',
      decidedBy: other.id,
      note: 'Partly delivered',
      escrowAmount: 80,
    })
    await expect(decide(other.id, { creatorAmount: 60, ownerAmount: 20 })).rejects.toMatchObject({
      code: 'DISPUTE_SETTLED',
    })
    await W.settle()
    const legs = await W.legsOf(q.escrowId)
    const payouts = legs.filter((l) => l.kind === 'payout').map((l) => BigInt(l.amount))
    expect(payouts).toEqual([(4n * AVAX * 20n) / 100n, (4n * AVAX * 20n) / 100n])
    const refund = sum(legs.filter((l) => l.kind === 'refund'))
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payouts[1]!)
    expect(await balanceOf(t, creator.id, 'avax')).toBe(creatorBefore + refund)
    expect(sum(legs)).toBe(toUnits(q.amountToPay, 18))
    expect(await W.job(id)).toMatchObject({
      status: 'resolved',
      escrowReleased: { creatorReleased: true, creatorAmount: 60, ownerReleased: true, ownerAmount: 20 },
    })
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)
    await expectConsistent(t)
  })
})
