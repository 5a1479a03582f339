// Every step of a job refused the same way: a stranger (404 when the job is hidden from them, 403
// when they can see it), the wrong party (403), the wrong state (422), the step taken twice or on
// a closed job (409), bad input (400) and no token (401). Nothing changes when a step is refused.
import { describe, expect, it } from 'vitest'
import { expectError, expectOk, UNKNOWN_ID, upload } from '../sdk/helpers.ts'
import { call, workScene } from './helpers.ts'

const W = workScene()

describe('invites', () => {
  it('refuses strangers, the wrong party, duplicates and closed invites', async () => {
    const { ctx, t, creator, talent, other, stranger } = W.scene
    const sdk = ctx.sdk
    const priv = await W.postJob({ isPrivate: true })
    const pub = await W.postJob()
    const send = (who: typeof creator | undefined, body: Record<string, unknown>) =>
      call(t, who, 'POST', '/v1/invite', body)
    expectError(await send(undefined, { recipient: talent.id, collection: pub }), 401, 'UNAUTHENTICATED')
    expectError(await send(stranger, { recipient: talent.id, collection: priv }), 404, 'NOT_FOUND')
    expectError(await send(stranger, { recipient: talent.id, collection: pub }), 403, 'FORBIDDEN')
    expectError(await send(creator, { recipient: creator.id, collection: pub }), 400, 'VALIDATION_ERROR')
    expectError(await send(creator, { recipient: UNKNOWN_ID, collection: pub }), 404, 'NOT_FOUND')
    expectError(await send(creator, { recipient: talent.id, collection: UNKNOWN_ID }), 404, 'NOT_FOUND')
    expectError(await send(creator, { recipient: 'nope', collection: pub }), 400, 'VALIDATION_ERROR')
    expectError(
      await send(creator, { recipient: talent.id, collection: pub, extra: 1 }),
      400,
      'VALIDATION_ERROR',
    )
    const child = await W.postJob({ parent: pub, name: 'Part' })
    expectError(
      await send(creator, { recipient: talent.id, collection: child }),
      422,
      'CHILD_COLLECTION_NOT_ALLOWED',
    )

    const inv = expectOk(
      await sdk.invite.sendInvite(creator.token, { recipient: talent.id, collection: priv }),
    )
    expectError(
      await send(creator, { recipient: talent.id, collection: priv }),
      409,
      'INVITE_ALREADY_PENDING',
    )
    // the invitee reads the private job and finds it in the list while invited; nobody else does
    expectOk(await sdk.collection.getById(talent.token, priv))
    const listed = expectOk(await sdk.collection.getAll(talent.token, { isPrivate: true }))
    expect(listed.data.map((c: { _id: string }) => c._id)).toEqual([priv])
    // the unfiltered list's total counts it for the invitee alone
    const totalOf = async (who: { token: string }) =>
      expectOk(await sdk.collection.getAll(who.token, {})).total
    expect(await totalOf(talent)).toBe((await totalOf(stranger)) + 1)
    expectError(await sdk.invite.getAnInvite(stranger.token, inv._id), 404, 'NOT_FOUND')
    expectError(await sdk.invite.acceptInvite(stranger.token, inv._id), 404, 'NOT_FOUND')
    expectError(await sdk.invite.acceptInvite(creator.token, inv._id), 403, 'FORBIDDEN')
    expectError(await sdk.invite.declineInvite(creator.token, inv._id), 403, 'FORBIDDEN')
    expectError(await sdk.invite.cancelInvite(talent.token, inv._id), 403, 'FORBIDDEN')
    expectError(await sdk.invite.cancelInvite(stranger.token, inv._id), 404, 'NOT_FOUND')
    expectError(await sdk.invite.getAll(talent.token, { status: 'maybe' }), 400, 'VALIDATION_ERROR')

    // cancelled by its sender (the SDK's doubled slash reaches it): hidden again, closed for good
    const cancelled = expectOk(await sdk.invite.cancelInvite(creator.token, inv._id))
    expect(cancelled).toMatchObject({ status: 'cancelled' })
    expect(typeof cancelled.deletedAt).toBe('string')
    expectError(await sdk.collection.getById(talent.token, priv), 404, 'NOT_FOUND')
    expect(await totalOf(talent)).toBe(await totalOf(stranger))
    expectError(await sdk.invite.cancelInvite(creator.token, inv._id), 409, 'INVITE_ALREADY_ANSWERED')
    expectError(await sdk.invite.acceptInvite(talent.token, inv._id), 409, 'INVITE_ALREADY_ANSWERED')
    expectError(await sdk.invite.declineInvite(talent.token, inv._id), 409, 'INVITE_ALREADY_ANSWERED')

    // accepted twice, declined after acceptance, an invite to a job that found its talent
    const a = expectOk(await sdk.invite.sendInvite(creator.token, { recipient: talent.id, collection: pub }))
    const b = expectOk(await sdk.invite.sendInvite(creator.token, { recipient: other.id, collection: pub }))
    expectOk(await sdk.invite.acceptInvite(talent.token, a._id))
    expectError(await sdk.invite.acceptInvite(talent.token, a._id), 409, 'INVITE_ALREADY_ANSWERED')
    expectError(await sdk.invite.declineInvite(talent.token, a._id), 409, 'INVITE_ALREADY_ANSWERED')
    expectError(await sdk.invite.acceptInvite(other.token, b._id), 409, 'INVITE_ALREADY_ANSWERED')
    expectError(await send(creator, { recipient: other.id, collection: pub }), 409, 'JOB_HAS_TALENT')
    expect((await W.job(pub)).owners).toEqual([talent.id])
  })
})

describe('applications', () => {
  it('refuses the creator, private and taken jobs, bad prices, and the wrong party', async () => {
    const { t, creator, talent, other, stranger } = W.scene
    const pub = await W.postJob()
    const priv = await W.postJob({ isPrivate: true })
    const apply = (who: typeof creator, id: string, body: Record<string, unknown> = { message: 'Hire me' }) =>
      call(t, who, 'POST', `/v1/collection/${id}/applications`, body)
    expectError(await apply(creator, pub), 403, 'FORBIDDEN')
    expectError(await apply(talent, priv), 404, 'NOT_FOUND')
    expectOk(
      await W.scene.ctx.sdk.invite.sendInvite(creator.token, { recipient: talent.id, collection: priv }),
    )
    expectError(await apply(talent, priv), 422, 'JOB_INVITE_ONLY')
    for (const amount of [0, -5, 1.234, '12.345', 'ten'])
      expectError(await apply(talent, pub, { message: 'Hire me', amount }), 400, 'VALIDATION_ERROR')
    expectError(await apply(talent, pub, { message: '   ' }), 400, 'VALIDATION_ERROR')
    const mine = expectOk(await apply(talent, pub, { message: 'Hire me', amount: '90.5' }))
    expect(mine.amount).toBe(90.5)
    expectError(await apply(talent, pub), 409, 'APPLICATION_ALREADY_PENDING')
    const theirs = expectOk(await apply(other, pub))

    expectError(await call(t, talent, 'GET', `/v1/collection/${pub}/applications`), 403, 'FORBIDDEN')
    expectError(await call(t, stranger, 'GET', `/v1/applications/${mine._id}`), 404, 'NOT_FOUND')
    expectError(await call(t, other, 'GET', `/v1/applications/${mine._id}`), 404, 'NOT_FOUND')
    expectError(await call(t, talent, 'POST', `/v1/applications/${mine._id}/accept`), 403, 'FORBIDDEN')
    expectError(await call(t, stranger, 'POST', `/v1/applications/${mine._id}/accept`), 404, 'NOT_FOUND')
    expectError(await call(t, talent, 'POST', `/v1/applications/${mine._id}/reject`), 403, 'FORBIDDEN')
    expectOk(await call(t, creator, 'POST', `/v1/applications/${theirs._id}/reject`))
    expectError(
      await call(t, creator, 'POST', `/v1/applications/${theirs._id}/reject`),
      409,
      'APPLICATION_ALREADY_ANSWERED',
    )
    expectError(
      await call(t, creator, 'POST', `/v1/applications/${theirs._id}/accept`),
      409,
      'APPLICATION_ALREADY_ANSWERED',
    )
    expectOk(await call(t, creator, 'POST', `/v1/applications/${mine._id}/accept`))
    expectError(
      await call(t, creator, 'POST', `/v1/applications/${mine._id}/accept`),
      409,
      'APPLICATION_ALREADY_ANSWERED',
    )
    expect(await W.job(pub)).toMatchObject({ owners: [talent.id], paymentFee: 90.5, status: 'waiting' })
    expectError(await apply(other, pub), 409, 'JOB_HAS_TALENT')
    // a cancelled job takes no applications
    const gone = await W.postJob()
    expectOk(await W.work(creator, gone, 'cancel', { reason: 'Budget cut' }))
    expectError(await apply(talent, gone), 409, 'COLLECTION_NOT_OPEN')
  })
})

describe('delivery, completion and cancellation', () => {
  it('takes each step only from its party and its state', async () => {
    const { ctx, t, creator, talent, other, stranger } = W.scene
    const waiting = await W.postJob()
    await W.hire(waiting)
    const { id } = await W.ongoingJob()

    // deliver: the talent, while ongoing, once; with their own files only
    expectError(await W.work(undefined, id, 'deliver'), 401, 'UNAUTHENTICATED')
    expectError(await W.work(creator, id, 'deliver'), 403, 'FORBIDDEN')
    expectError(await W.work(stranger, id, 'deliver'), 403, 'FORBIDDEN')
    expectError(await W.work(talent, waiting, 'deliver'), 422, 'JOB_STATE_MISMATCH')
    expectError(await W.work(talent, UNKNOWN_ID, 'deliver'), 404, 'NOT_FOUND')
    const othersFile = await upload(ctx, { ...other, firstName: 'Otto', lastName: 'Other' })
    expectError(
      await W.work(talent, id, 'deliver', { attachments: [othersFile._id] }),
      400,
      'VALIDATION_ERROR',
    )
    // complete needs a delivery; changes cannot be asked of a job that is ongoing already
    expectError(await W.work(creator, id, 'complete'), 422, 'JOB_STATE_MISMATCH')
    expectError(await W.work(creator, id, 'request-changes'), 409, 'JOB_ALREADY_IN_STATE')
    const file = await upload(ctx, { ...talent, firstName: 'Tala', lastName: 'Talent' })
    const delivered = expectOk(await W.work(talent, id, 'deliver', { note: 'Done', attachments: [file._id] }))
    expect(delivered).toMatchObject({
      recipientCompletedJob: true,
      delivery: { note: 'Done', attachments: [file._id], attachmentData: [{ _id: file._id }] },
    })
    expectError(await W.work(talent, id, 'deliver'), 409, 'JOB_ALREADY_IN_STATE')
    expectError(
      await ctx.sdk.collection.updateCollection(talent.token, id, { status: 'completed' } as never),
      409,
      'JOB_ALREADY_IN_STATE',
    )

    // a delivered job is disputed, not cancelled
    expectError(await W.work(creator, id, 'cancel', { reason: 'Too late' }), 422, 'JOB_STATE_MISMATCH')
    expectError(await W.work(talent, id, 'request-changes'), 403, 'FORBIDDEN')
    expectOk(await W.work(creator, id, 'request-changes'))
    expect(await W.job(id)).toMatchObject({ status: 'ongoing', recipientCompletedJob: false })
    expectOk(await W.work(talent, id, 'deliver'))

    // complete: the creator only, once; the unfunded one cannot
    expectError(await W.work(talent, id, 'complete'), 403, 'FORBIDDEN')
    expectError(await W.work(stranger, id, 'complete'), 403, 'FORBIDDEN')
    expectError(await W.work(creator, waiting, 'complete'), 422, 'JOB_STATE_MISMATCH')
    expectOk(await W.work(creator, id, 'complete'))
    expectError(await W.work(creator, id, 'complete'), 409, 'JOB_ALREADY_IN_STATE')
    expectError(await W.work(creator, id, 'cancel', { reason: 'x' }), 409, 'JOB_CLOSED')
    expectError(await W.work(talent, id, 'dispute', { reason: 'x' }), 409, 'JOB_CLOSED')
    await W.settle()

    // cancel: the creator only, with a reason, once; no share without a paid escrow
    expectError(await W.work(talent, waiting, 'cancel', { reason: 'x' }), 403, 'FORBIDDEN')
    expectError(await W.work(creator, waiting, 'cancel', {}), 400, 'VALIDATION_ERROR')
    expectError(
      await W.work(creator, waiting, 'cancel', { reason: 'x', paymentPercentage: 101 }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await W.work(creator, waiting, 'cancel', { reason: 'x', paymentPercentage: 10 }),
      422,
      'PAYMENT_PERCENTAGE_UNAVAILABLE',
    )
    const patch = (who: typeof creator, body: Record<string, unknown>) =>
      call(t, who, 'PATCH', `/v1/collection/${waiting}`, body)
    expectError(
      await patch(creator, { status: 'cancelled', cancellationReason: '' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await patch(talent, { status: 'cancelled', cancellationReason: 'x' }), 403, 'FORBIDDEN')
    expectError(await patch(talent, { status: 'cancelled' }), 403, 'FORBIDDEN')
    expectOk(await patch(creator, { status: 'cancelled', cancellationReason: 'Budget cut' }))
    expectError(
      await patch(creator, { status: 'cancelled', cancellationReason: 'again' }),
      409,
      'JOB_ALREADY_IN_STATE',
    )
    expectError(await W.work(creator, waiting, 'cancel', { reason: 'again' }), 409, 'JOB_ALREADY_IN_STATE')
    expect(await W.job(waiting)).toMatchObject({ status: 'cancelled', cancellationReason: 'Budget cut' })
  })

  it('moves a job by status only along the table, and keeps details and progress to their owners', async () => {
    const { t, creator, talent, stranger } = W.scene
    const pending = await W.postJob()
    const patch = (who: typeof creator, id: string, body: Record<string, unknown>) =>
      call(t, who, 'PATCH', `/v1/collection/${id}`, body)
    expectError(await patch(creator, pending, { status: 'waiting' }), 422, 'STATUS_CHANGE_NOT_ALLOWED')
    expectError(await patch(creator, pending, { status: 'pending' }), 422, 'STATUS_CHANGE_NOT_ALLOWED')
    expectError(await patch(creator, pending, { status: 'deleted' }), 422, 'STATUS_CHANGE_NOT_ALLOWED')
    expectError(await patch(creator, pending, { status: 'ongoing' }), 422, 'JOB_STATE_MISMATCH')
    expectError(await patch(creator, pending, { status: 'done' }), 400, 'VALIDATION_ERROR')
    expectError(await patch(creator, pending, { cancellationReason: 'x' }), 400, 'VALIDATION_ERROR')
    expectError(await patch(stranger, pending, { status: 'completed' }), 403, 'FORBIDDEN')
    // the SDK's update carries name and description with the status: unchanged ones are fine
    expectError(
      await patch(creator, pending, { name: 'Renamed', status: 'cancelled', cancellationReason: 'x' }),
      400,
      'VALIDATION_ERROR',
    )

    const { id } = await W.ongoingJob()
    expectError(await patch(creator, id, { progress: 10 }), 403, 'FORBIDDEN')
    expectError(await patch(talent, id, { progress: 101 }), 400, 'VALIDATION_ERROR')
    expectError(await patch(talent, id, { progress: 10, status: 'completed' }), 400, 'VALIDATION_ERROR')
    expectError(await patch(talent, id, { name: 'Mine now' }), 403, 'FORBIDDEN')
    expectError(await patch(creator, id, { name: 'Renamed' }), 409, 'COLLECTION_LOCKED')
    expect(expectOk(await patch(talent, id, { progress: 30, name: 'Landing page' })).progress).toBe(30)
    const waiting = await W.postJob()
    await W.hire(waiting)
    expectError(await patch(talent, waiting, { progress: 30 }), 422, 'JOB_STATE_MISMATCH')

    // deliverables: the talent of an ongoing job only, in their own statuses
    const part = await W.postJob({ parent: id, name: 'Part' })
    expectError(await patch(talent, id, { progress: 40 }), 422, 'PROGRESS_FOLLOWS_DELIVERABLES')
    expectError(await patch(creator, part, { progress: 40 }), 403, 'FORBIDDEN')
    expectError(await patch(talent, part, { status: 'cancelled' }), 400, 'VALIDATION_ERROR')
    expectError(await patch(talent, part, { status: 'completed', progress: 50 }), 400, 'VALIDATION_ERROR')
    const waitingPart = await W.postJob({ parent: waiting, name: 'Part' })
    expectError(await patch(talent, waitingPart, { progress: 40 }), 422, 'JOB_STATE_MISMATCH')
    expect(expectOk(await patch(talent, part, { progress: 100 })).status).toBe('completed')
    expect((await W.job(id)).progress).toBe(100)

    // the bulk update is all or nothing, and names the item that failed
    const many = (who: typeof creator, collections: unknown) =>
      call(t, who, 'PATCH', '/v1/collection/many/update', { collections })
    const bad = await many(talent, [
      { id: part, progress: 10 },
      { id: waitingPart, progress: 10 },
    ])
    expectError(bad, 422, 'JOB_STATE_MISMATCH')
    expect(bad.message).toMatch(/^\/collections\/1: /)
    expect((await W.job(id)).progress).toBe(100)
    const badField = await many(creator, [{ id: pending, name: '  ' }])
    expectError(badField, 400, 'VALIDATION_ERROR')
    expect(badField.data.errors).toEqual([{ path: '/collections/0/name', message: 'must not be blank' }])
    expectError(await many(creator, [{ id: id, status: 'completed' }]), 422, 'STATUS_CHANGE_NOT_ALLOWED')
    expectError(await many(creator, []), 400, 'VALIDATION_ERROR')
    const ok = expectOk(await many(creator, { collections: [{ id: pending, name: 'New name' }] }))
    expect(ok.map((c: { name: string }) => c.name)).toEqual(['New name'])
  })
})

describe('deliverables in bulk', () => {
  it('creates every item under the creator’s own job, or none', async () => {
    const { t, creator, stranger } = W.scene
    const job = await W.postJob()
    const priv = await W.postJob({ isPrivate: true })
    const many = (who: typeof creator, body: Record<string, unknown>) =>
      call(t, who, 'POST', '/v1/collection/many', body)
    const items = [
      { name: 'Design', description: 'Mock-ups' },
      { name: 'Build', description: 'The page', paymentFee: 20 },
    ]
    expectError(await many(stranger, { type: 'job', parent: job, collections: items }), 403, 'FORBIDDEN')
    expectError(await many(stranger, { type: 'job', parent: priv, collections: items }), 404, 'NOT_FOUND')
    expectError(await many(creator, { type: 'job', parent: job, collections: [] }), 400, 'VALIDATION_ERROR')
    const bad = await many(creator, {
      type: 'job',
      parent: job,
      collections: [items[0], { name: ' ', description: 'x' }],
    })
    expectError(bad, 400, 'VALIDATION_ERROR')
    expect(bad.data.errors).toEqual([{ path: '/collections/1/name', message: 'must not be blank' }])
    expect((await W.job(job)).collections).toEqual([])
    const made = expectOk(await many(creator, { type: 'job', parent: job, collections: items }))
    expect(
      made.map((c: { name: string; parent: string; paymentFee: number }) => [c.name, c.parent, c.paymentFee]),
    ).toEqual([
      ['Design', job, 0],
      ['Build', job, 20],
    ])
    expect((await W.job(job)).totalChildCollectionsCount).toBe(2)
    expectError(
      await many(creator, { type: 'job', parent: made[0]._id, collections: items }),
      422,
      'COLLECTION_NESTING_TOO_DEEP',
    )
  })
})

describe('disputes and reviews', () => {
  it('refuses disputes and reviews out of turn', async () => {
    const { ctx, t, creator, talent, stranger } = W.scene
    const pending = await W.postJob()
    const waiting = await W.postJob()
    await W.hire(waiting)
    expectError(await W.work(creator, pending, 'dispute', { reason: 'x' }), 422, 'JOB_STATE_MISMATCH')
    expectError(await W.work(talent, waiting, 'dispute', { reason: 'x' }), 422, 'JOB_STATE_MISMATCH')
    expectError(await call(t, creator, 'GET', `/v1/collection/${waiting}/dispute`), 404, 'NOT_FOUND')
    const { id } = await W.ongoingJob()
    expectError(await W.work(stranger, id, 'dispute', { reason: 'x' }), 403, 'FORBIDDEN')
    expectError(await W.work(talent, id, 'dispute', { reason: '' }), 400, 'VALIDATION_ERROR')
    // a job whose whole escrow is on its way out holds nothing to dispute
    const out = await W.ongoingJob()
    const price = (await W.job(out.id)).paymentFee as number
    expectOk(await ctx.sdk.payment.release(creator.token, { collection: out.id, amount: price }))
    expectError(await W.work(talent, out.id, 'dispute', { reason: 'x' }), 422, 'DISPUTE_ESCROW_NOT_HELD')
    expectError(
      await W.work(talent, id, 'dispute/proposal', { creatorAmount: 1, ownerAmount: 99 }),
      404,
      'NOT_FOUND',
    )
    expectOk(await W.work(creator, id, 'dispute', { reason: 'Wrong colours' }))
    expectError(await W.work(talent, id, 'dispute', { reason: 'again' }), 409, 'JOB_ALREADY_IN_STATE')
    expectError(await W.work(talent, id, 'deliver'), 422, 'JOB_STATE_MISMATCH')
    expectError(
      await W.work(stranger, id, 'dispute/proposal', { creatorAmount: 50, ownerAmount: 50 }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await W.work(talent, id, 'dispute/proposal', { creatorAmount: 50.001, ownerAmount: 50 }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await W.work(talent, id, 'dispute/proposal', { creatorAmount: 50, ownerAmount: 51 }),
      422,
      'DISPUTE_SPLIT_MISMATCH',
    )

    // reviews: only once the job is completed or resolved, by its parties, of each other, once
    const review = (who: typeof creator, body: Record<string, unknown>) =>
      ctx.sdk.review.addReview(who.token, body as never)
    const about = (jobId: string, receiver: string, extra = {}) => ({
      collectionId: jobId,
      receiver,
      rating: 4,
      review: 'Fine',
      ...extra,
    })
    expectError(await review(creator, about(id, talent.id)), 422, 'REVIEW_NOT_OPEN')
    expectOk(await W.work(talent, id, 'dispute/proposal', { creatorAmount: 50, ownerAmount: 50 }))
    expectOk(await W.work(creator, id, 'dispute/accept', { creatorAmount: 50, ownerAmount: 50 }))
    expectError(
      await W.work(creator, id, 'dispute/proposal', { creatorAmount: 50, ownerAmount: 50 }),
      409,
      'DISPUTE_SETTLED',
    )
    await W.settle()
    expectError(await review(stranger, about(id, talent.id)), 403, 'FORBIDDEN')
    expectError(await review(creator, about(id, creator.id)), 400, 'VALIDATION_ERROR')
    expectError(await review(creator, about(id, talent.id, { rating: 6 })), 400, 'VALIDATION_ERROR')
    expectError(await review(creator, about(id, talent.id, { rating: 4.5 })), 400, 'VALIDATION_ERROR')
    expectError(await review(creator, about(id, talent.id, { review: ' ' })), 400, 'VALIDATION_ERROR')
    expectError(await review(creator, about(UNKNOWN_ID, talent.id)), 404, 'NOT_FOUND')
    expectOk(await review(creator, about(id, talent.id)))
    expectError(await review(creator, about(id, talent.id)), 409, 'REVIEW_ALREADY_SENT')
    expectError(await ctx.sdk.review.viewAll(creator.token, { rating: 9 }), 400, 'VALIDATION_ERROR')
    expectError(await ctx.sdk.review.viewAReview(creator.token, UNKNOWN_ID), 404, 'NOT_FOUND')
  })
})
