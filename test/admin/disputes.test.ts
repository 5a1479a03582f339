// Disputes for operators on a real database and the dev chain: the list with evidence and what is
// still in escrow, and an admin's decided split paid to both parties through the escrow's legs,
// audited with its reason; normal users and admins without a fresh second factor are refused.
import { describe, expect, it } from 'vitest'
import { toUnits } from '../escrow/payment-helpers.ts'
import type { TestUser } from '../helpers/factories.ts'
import { AVAX, balanceOf, expectConsistent } from '../helpers/money.ts'
import { workScene } from '../work/helpers.ts'
import { auditRows, elevateSession, expectError, expectOk } from './helpers.ts'

const W = workScene()
const sum = (rows: { amount: string }[]) => rows.reduce((s, r) => s + BigInt(r.amount), 0n)
const reason = 'Ticket 88: evidence from both parties reviewed'
const call = (
  _t: unknown,
  user: TestUser | undefined,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
) => W.scene.t.req({ method, url, ...(payload ? { payload } : {}), ...(user ? { token: user.token } : {}) })

describe('disputes under /v1/admin', () => {
  it('lists a dispute with its escrow and pays the split an admin decides to both parties', async () => {
    const { t, creator, talent, other } = W.scene
    const { id, q } = await W.ongoingJob()
    expect((await W.work(creator, id, 'dispute', { reason: 'The page does not load' })).code).toBe(200)

    // A normal user, then an admin whose session has no fresh second factor.
    const body = { creatorAmount: 40, ownerAmount: 60, reason, note: 'Most of it was delivered' }
    expectError(await call(t, undefined, 'GET', '/v1/admin/disputes'), 401, 'UNAUTHENTICATED')
    expectError(await call(t, other, 'GET', '/v1/admin/disputes'), 403, 'FORBIDDEN')
    expectError(await call(t, talent, 'POST', `/v1/admin/disputes/${id}/decide`, body), 403, 'FORBIDDEN')
    await t.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', other.id).execute()
    expectError(await call(t, other, 'POST', `/v1/admin/disputes/${id}/decide`, body), 403, 'FORBIDDEN')
    await elevateSession(t, other)

    const list = expectOk(await call(t, other, 'GET', '/v1/admin/disputes?status=open'))
    const listed = list.data.find((d: { collection: string }) => d.collection === id)
    expect(listed).toMatchObject({ status: 'open', raisedBy: creator.id, escrowAmount: 100, proposal: null })

    expectError(
      await call(t, other, 'POST', `/v1/admin/disputes/${id}/decide`, { ...body, reason: '' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await call(t, other, 'POST', `/v1/admin/disputes/${id}/decide`, { ...body, ownerAmount: 70 }),
      422,
      'DISPUTE_SPLIT_MISMATCH',
    )
    expectError(
      await call(t, other, 'POST', '/v1/admin/disputes/65f1c0a2b3c4d5e6f7a8b9d1/decide', body),
      404,
      'NOT_FOUND',
    )

    const creatorBefore = await balanceOf(t, creator.id, 'avax')
    const talentBefore = await balanceOf(t, talent.id, 'avax')
    const decided = expectOk(await call(t, other, 'POST', `/v1/admin/disputes/${id}/decide`, body))
    expect(decided).toMatchObject({
      status: 'settling',
      resolution: 'arbiter',
      decidedBy: other.id,
      creatorAmount: 40,
      ownerAmount: 60,
      note: 'Most of it was delivered',
    })
    expectError(await call(t, other, 'POST', `/v1/admin/disputes/${id}/decide`, body), 409, 'DISPUTE_SETTLED')
    const [audit] = (await auditRows(t, 'dispute.decide')).filter(
      (a) => (a.details as { collectionId?: string }).collectionId === id,
    )
    expect(audit).toMatchObject({ actorId: other.id, targetType: 'dispute', targetId: decided._id, reason })

    await W.settle()
    const legs = await W.legsOf(q.escrowId)
    const payout = sum(legs.filter((l) => l.kind === 'payout'))
    const refund = sum(legs.filter((l) => l.kind === 'refund'))
    expect(payout).toBe((4n * AVAX * 60n) / 100n)
    expect(refund).toBeGreaterThan(0n)
    expect(legs.every((l) => l.status === 'completed')).toBe(true)
    expect(await balanceOf(t, talent.id, 'avax')).toBe(talentBefore + payout)
    expect(await balanceOf(t, creator.id, 'avax')).toBe(creatorBefore + refund)
    expect(sum(legs)).toBe(toUnits(q.amountToPay, 18))
    const settled = expectOk(await call(t, other, 'GET', '/v1/admin/disputes?status=settled'))
    expect(settled.data.map((d: { collection: string }) => d.collection)).toContain(id)
    await expectConsistent(t)
  })
})
