// The whole life of a job through the client SDK against the listening service: post → invite →
// decline → re-invite → accept → fund (paid on the dev chain) → progress of its deliverables →
// release a milestone → deliver → complete (the rest is released) → both parties review. The
// ledger and the chain agree after every money step.
import { describe, expect, it } from 'vitest'
import { Invite, Review } from '../../src/modules/work/schemas.ts'
import { toUnits } from '../escrow/payment-helpers.ts'
import { AVAX, balanceOf } from '../helpers/money.ts'
import { expectError, expectOk, expectShape } from '../sdk/helpers.ts'
import { workScene } from './helpers.ts'

const W = workScene()

describe('a job from posting to paid reviews', () => {
  it('walks every step through the SDK', async () => {
    const { ctx, t, creator, talent, other, stranger } = W.scene
    const sdk = ctx.sdk

    // post a private job: nobody else sees it
    const id = await W.postJob({ isPrivate: true, paymentFee: 100 })
    expect(await W.job(id)).toMatchObject({
      status: 'pending',
      owners: [],
      invites: [],
      inviteAccepted: false,
    })
    expectError(await sdk.collection.getById(talent.token, id), 404, 'NOT_FOUND')

    // invite: the invitee sees the private job while the invite is pending
    const first = expectOk(
      await sdk.invite.sendInvite(creator.token, {
        recipient: talent.id,
        collection: id,
        message: 'Would you?',
      } as never),
    )
    expectShape(Invite, first, 'the invite')
    expect(first).toMatchObject({
      status: 'pending',
      message: 'Would you?',
      emailToken: '',
      sender: { _id: creator.id, firstName: 'Cora' },
      receiver: { _id: talent.id },
      data: { _id: id, name: 'Landing page', status: 'pending', creator: creator.id },
    })
    expect(first.description).toBe('Cora Creator invited you to “Landing page”')
    expect(expectOk(await sdk.collection.getById(talent.token, id))._id).toBe(id)
    const received = expectOk(await sdk.invite.getAll(talent.token, { role: 'received' }))
    expect(received).toMatchObject({ total: 1, page: 1, pages: 1, limit: 12 })
    expect(received.data.map((i: { _id: string }) => i._id)).toEqual([first._id])
    expect(expectOk(await sdk.invite.getAll(talent.token, { role: 'sent' })).total).toBe(0)
    expect(expectOk(await sdk.invite.getAnInvite(creator.token, first._id))._id).toBe(first._id)

    // decline: hidden again
    expect(expectOk(await sdk.invite.declineInvite(talent.token, first._id)).status).toBe('rejected')
    expectError(await sdk.collection.getById(talent.token, id), 404, 'NOT_FOUND')

    // re-invite, and invite another talent too
    const second = expectOk(
      await sdk.invite.sendInvite(creator.token, { recipient: talent.id, collection: id }),
    )
    const third = expectOk(
      await sdk.invite.sendInvite(creator.token, { recipient: other.id, collection: id }),
    )
    expect(
      expectOk(await sdk.invite.getAll(creator.token, { status: 'pending', collection: id })).total,
    ).toBe(2)

    // accept: the talent is assigned, the other invite expires (and the other talent loses sight)
    const accepted = expectOk(await sdk.invite.acceptInvite(talent.token, second._id))
    expect(accepted.status).toBe('accepted')
    expect(typeof accepted.acceptedAt).toBe('string')
    expect(await W.job(id)).toMatchObject({
      status: 'waiting',
      owners: [talent.id],
      inviteAccepted: true,
      invites: [first._id, second._id, third._id],
    })
    expect(expectOk(await sdk.invite.getAnInvite(other.token, third._id)).status).toBe('expired')
    expectError(await sdk.collection.getById(other.token, id), 404, 'NOT_FOUND')
    expectError(await sdk.collection.getById(stranger.token, id), 404, 'NOT_FOUND')

    // two deliverables (child collections without an escrow)
    const d1 = await W.postJob({ parent: id, name: 'Design', paymentFee: 0 })
    const d2 = await W.postJob({ parent: id, name: 'Build', paymentFee: 0 })

    // fund: paid on the dev chain, the work starts
    const q = await W.fund(id)
    expect(await W.job(id)).toMatchObject({
      status: 'ongoing',
      escrowPaid: true,
      recipientCompletedJob: false,
    })
    const price = toUnits(q.collectionAmountCoin, 18)
    expect(price).toBe(4n * AVAX)
    const before = await balanceOf(t, talent.id, 'avax')

    // progress: the talent updates the deliverables in bulk, then one of them; the job follows
    expectOk(
      await sdk.collection.updateManyCollections(talent.token, {
        collections: [
          { id: d1, progress: 50 },
          { id: d2, status: 'ongoing', progress: 20 },
        ],
      } as never),
    )
    expect((await W.job(id)).progress).toBe(35)
    expectOk(await sdk.collection.updateCollection(talent.token, d1, { status: 'completed' } as never))
    const progressed = await W.job(id)
    expect(progressed.progress).toBe(60)
    expect(
      progressed.collections.map((c: { status: string; progress: number }) => [c.status, c.progress]),
    ).toEqual([
      ['completed', 100],
      ['ongoing', 20],
    ])

    // a milestone: the first part of the payment
    const part = expectOk(await sdk.payment.release(creator.token, { collection: id, amount: 40 }))
    expect(part).toMatchObject({ amount: 40, releasedAmount: 40, remainingAmount: 60, final: false })
    await W.settle()
    expect(await balanceOf(t, talent.id, 'avax')).toBe(before + (price * 40n) / 100n)

    // deliver: the talent's "completed" is the delivery
    expectOk(await sdk.collection.updateCollection(talent.token, id, { status: 'completed' } as never))
    const delivered = await W.job(id)
    expect(delivered).toMatchObject({
      status: 'ongoing',
      recipientCompletedJob: true,
      delivery: { note: '' },
    })

    // complete: the creator's "completed" releases the rest (the second part)
    const done = expectOk(
      await sdk.collection.updateCollection(creator.token, id, {
        name: 'Landing page',
        description: 'One responsive page',
        status: 'completed',
      }),
    )
    expect(done).toMatchObject({ status: 'completed', progress: 100 })
    await W.settle()
    expect(await balanceOf(t, talent.id, 'avax')).toBe(before + price)
    await t.app.services.settlement.watcher.scanNow()
    expect(expectOk(await sdk.payment.validate(talent.token, { collection: id })).status).toBe('released')
    const completed = await W.job(id)
    expect(completed).toMatchObject({
      status: 'completed',
      payoutStatus: 'completed',
      feePayoutStatus: 'completed',
      platformFeePayoutStatus: 'completed',
    })
    expect(typeof completed.completedDate).toBe('string')
    const legs = await W.legsOf(q.escrowId)
    expect(legs.filter((l) => l.kind === 'payout').reduce((s, l) => s + BigInt(l.amount), 0n)).toBe(price)

    // both review
    const r1 = expectOk(
      await sdk.review.addReview(creator.token, {
        collectionId: id,
        receiver: talent.id,
        rating: 5,
        review: 'Great work',
      }),
    )
    expectShape(Review, r1, 'the review')
    expect(r1).toMatchObject({
      type: 'talent',
      rating: 5,
      owner: { _id: creator.id },
      receiver: { _id: talent.id },
    })
    const r2 = expectOk(
      await sdk.review.addReview(talent.token, {
        collectionId: id,
        receiver: creator.id,
        rating: 4,
        review: 'Clear brief',
      }),
    )
    expect(r2).toMatchObject({ type: 'creator', rating: 4 })
    expect(await W.job(id)).toMatchObject({ ratings: [r1._id, r2._id], score: 90 })
    const talentProfile = expectOk(await sdk.account.getUser(talent.token))
    expect(talentProfile.score).toBe(100)
    const achievements = (talentProfile.achievements as { type: string; total: string; value: string }[])
      .map((a) => [a.type, a.total, a.value])
      .sort()
    expect(achievements).toEqual([
      ['five-star', '1', '5'],
      ['review', '1', '5'],
    ])
    const creatorProfile = expectOk(await sdk.account.getUser(creator.token))
    expect(creatorProfile.score).toBe(80)
    expect(creatorProfile.achievements.map((a: { type: string }) => a.type)).toEqual(['review'])

    // reviews of a private job are read by its two parties only
    const mine = expectOk(await sdk.review.viewAll(talent.token, { receiver: talent.id }))
    expect(mine).toMatchObject({ count: 1, total: 1, pages: 1 })
    expect(mine.data[0]._id).toBe(r1._id)
    expect(expectOk(await sdk.review.viewAll(stranger.token, { receiver: talent.id })).count).toBe(0)
    expect(expectOk(await sdk.review.viewAReview(creator.token, r2._id)).review).toBe('Clear brief')
    expectError(await sdk.review.viewAReview(stranger.token, r2._id), 404, 'NOT_FOUND')

    // every step is audited
    expect((await W.audits(id)).map((a) => a.action)).toEqual([
      'work.invite_sent',
      'work.invite_declined',
      'work.invite_sent',
      'work.invite_sent',
      'work.talent_assigned',
      'work.invite_accepted',
      'work.deliverable_updated',
      'work.deliverable_updated',
      'work.deliverable_updated',
      'work.delivered',
      'work.completed',
      'work.reviewed',
      'work.reviewed',
    ])
  })
})
