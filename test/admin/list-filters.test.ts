// The creation window (`from` inclusive, `to` exclusive) of the operator's lists of outgoing
// transfers, withdrawals, escrow legs, disputes and accounts, on a real database and the dev chain:
// rows created inside the window are listed, rows outside it are not, a window whose `from` is after
// its `to` (or not a date-time) is refused with the field's path, and the lists stay closed to
// normal users and to admins without a fresh second factor. The dispute page answers the emails of
// the accounts that raised and decided it.
import { describe, expect, it } from 'vitest'
import type { TestUser } from '../helpers/factories.ts'
import { AVAX } from '../helpers/money.ts'
import { freshAddress, fundUser } from '../withdrawals/helpers.ts'
import { workScene } from '../work/helpers.ts'
import { elevateSession, expectError, expectOk } from './helpers.ts'

const W = workScene()
const LISTS = ['transfers', 'withdrawals', 'escrow-legs', 'disputes', 'users'] as const
const enc = encodeURIComponent
const get = (user: TestUser | undefined, url: string) =>
  W.scene.t.req({ method: 'GET', url, ...(user ? { token: user.token } : {}) })
const range = (from?: string, to?: string) =>
  [from ? `from=${enc(from)}` : '', to ? `to=${enc(to)}` : ''].filter(Boolean).join('&')
type Row = { _id: string; createdAt: string }
const ids = (page: { data: Row[] }) => page.data.map((r) => r._id)
/** One millisecond after an ISO time (the API answers milliseconds; the database keeps microseconds). */
const justAfter = (iso: string) => new Date(new Date(iso).getTime() + 1).toISOString()

/** The scene's `other` made an admin with a fresh second factor (the arbiter of the disputes test). */
async function operator() {
  const { t, other } = W.scene
  await t.database.db.updateTable('users').set({ role: 'admin' }).where('id', '=', other.id).execute()
  await elevateSession(t, other)
  return other
}

async function withdraw(user: TestUser) {
  const res = await W.scene.t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount: 0.1, coin: 'avax', address: freshAddress(), password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.withdrawalId as string
}

describe('creation window of the operator lists', () => {
  it('is refused when inverted or not a date-time, and the lists stay closed to non-operators', async () => {
    const { stranger, talent } = W.scene
    const admin = await operator()
    for (const list of LISTS) {
      const url = `/v1/admin/${list}`
      const inverted = await get(
        admin,
        `${url}?${range('2026-02-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')}`,
      )
      expectError(inverted, 400, 'VALIDATION_ERROR')
      expect(inverted.json().data.errors, list).toEqual([{ path: '/from', message: expect.any(String) }])
      expectError(await get(admin, `${url}?from=yesterday`), 400, 'VALIDATION_ERROR')
      expectError(await get(admin, `${url}?to=2026-13-01`), 400, 'VALIDATION_ERROR')
      // an empty window (from = to) is allowed and holds nothing
      const empty = expectOk(
        await get(admin, `${url}?${range('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')}`),
      )
      expect(empty.total, list).toBe(0)

      const q = `${url}?${range('2020-01-01T00:00:00.000Z')}`
      expectError(await get(undefined, q), 401, 'UNAUTHENTICATED')
      expectError(await get(stranger, q), 403, 'FORBIDDEN')
      expectError(await get(talent, q), 403, 'FORBIDDEN')
    }
  })

  it('lists the accounts, disputes and escrow legs created inside the window only', async () => {
    const { creator, talent, other, stranger } = W.scene
    const admin = await operator()

    // Accounts: the scene made creator, talent, other and stranger in this order.
    const user = async (u: TestUser) => expectOk(await get(admin, `/v1/admin/users/${u.id}`)) as Row
    const [c, tl, o, s] = await Promise.all([creator, talent, other, stranger].map(user))
    const users = async (w: string) => ids(expectOk(await get(admin, `/v1/admin/users?limit=100&${w}`)))
    const middle = await users(range(tl!.createdAt, o!.createdAt))
    expect(middle).toContain(talent.id)
    expect(middle).not.toContain(creator.id)
    expect(middle).not.toContain(other.id)
    expect(middle).not.toContain(stranger.id)
    const late = await users(range(o!.createdAt))
    expect(late).toEqual(expect.arrayContaining([other.id, stranger.id]))
    expect(late).not.toContain(talent.id)
    expect(await users(range(undefined, c!.createdAt))).not.toContain(creator.id)
    expect(s!.createdAt >= o!.createdAt).toBe(true)

    // Disputes: two jobs disputed one after the other.
    const first = await W.ongoingJob()
    expect((await W.work(creator, first.id, 'dispute', { reason: 'The page does not load' })).code).toBe(200)
    const second = await W.ongoingJob()
    expect((await W.work(creator, second.id, 'dispute', { reason: 'Nothing delivered' })).code).toBe(200)
    const all = expectOk(await get(admin, '/v1/admin/disputes?limit=100')).data as (Row & {
      collection: string
    })[]
    const d1 = all.find((d) => d.collection === first.id)!
    const d2 = all.find((d) => d.collection === second.id)!
    const disputes = async (w: string) =>
      (expectOk(await get(admin, `/v1/admin/disputes?limit=100&${w}`)).data as { collection: string }[]).map(
        (d) => d.collection,
      )
    expect(await disputes(range(d1.createdAt, d2.createdAt))).toEqual([first.id])
    expect(await disputes(range(d2.createdAt))).toEqual([second.id])
    expect(await disputes(`status=open&${range(undefined, d1.createdAt)}`)).toEqual([])
    expect(await disputes(`status=open&${range(d1.createdAt, justAfter(d2.createdAt))}`)).toEqual([
      first.id,
      second.id,
    ])

    // Escrow legs: the first dispute decided and paid out.
    const body = { creatorAmount: 40, ownerAmount: 60, reason: 'Ticket 91: reviewed', note: 'Split' }
    expectOk(
      await W.scene.t.req({
        method: 'POST',
        url: `/v1/admin/disputes/${first.id}/decide`,
        token: admin.token,
        payload: body,
      }),
    )
    await W.settle()
    // The dispute page names the accounts by email, not only by id.
    const page = expectOk(await get(admin, `/v1/admin/disputes/${d1._id}`))
    expect(page).toMatchObject({
      raisedBy: creator.id,
      raisedByEmail: creator.email,
      decidedBy: admin.id,
      decidedByEmail: admin.email,
      proposedByEmail: null,
    })
    expect(expectOk(await get(admin, `/v1/admin/disputes/${d2._id}`))).toMatchObject({
      raisedByEmail: creator.email,
      decidedBy: null,
      decidedByEmail: null,
    })
    const legs = async (w: string) =>
      expectOk(await get(admin, `/v1/admin/escrow-legs?escrow=${first.q.escrowId}&limit=100&${w}`)) as {
        total: number
        data: Row[]
      }
    const every = await legs('')
    expect(every.total).toBeGreaterThan(0)
    const times = every.data.map((l) => l.createdAt).sort()
    const oldest = times[0]!
    const newest = times.at(-1)!
    expect((await legs(range(oldest, justAfter(newest)))).total).toBe(every.total)
    expect((await legs(range(undefined, oldest))).total).toBe(0)
    expect((await legs(range(justAfter(newest)))).total).toBe(0)
  })

  it('lists the withdrawals and outgoing transfers created inside the window only', async () => {
    const { t, talent } = W.scene
    const admin = await operator()
    await fundUser(t, 4, talent, 'avax', AVAX)
    const w1 = await withdraw(talent)
    const w2 = await withdraw(talent)
    const withdrawal = async (id: string) =>
      expectOk(await get(admin, `/v1/admin/withdrawals/${id}`)) as Row & { outgoingId: string | null }
    const [r1, r2] = [await withdrawal(w1), await withdrawal(w2)]
    expect(r1!.createdAt < r2!.createdAt).toBe(true)

    const withdrawals = async (w: string) =>
      ids(expectOk(await get(admin, `/v1/admin/withdrawals?user=${talent.id}&limit=100&${w}`)))
    expect(await withdrawals(range(r1!.createdAt, r2!.createdAt))).toEqual([w1])
    expect(await withdrawals(range(r2!.createdAt))).toEqual([w2])
    expect(await withdrawals(range(undefined, r1!.createdAt))).toEqual([])
    expect(await withdrawals(`order=newest&${range(r1!.createdAt, justAfter(r2!.createdAt))}`)).toEqual([
      w2,
      w1,
    ])

    const transferOf = async (withdrawalId: string) => {
      const page = expectOk(
        await get(admin, `/v1/admin/transfers?purpose=withdrawal&referenceId=${withdrawalId}`),
      ) as { data: Row[] }
      expect(page.data).toHaveLength(1)
      return page.data[0]!
    }
    const [t1, t2] = [await transferOf(w1), await transferOf(w2)]
    const transfers = async (w: string) =>
      ids(expectOk(await get(admin, `/v1/admin/transfers?purpose=withdrawal&limit=100&${w}`)))
    const between = await transfers(range(t1.createdAt, t2.createdAt))
    expect(between).toContain(t1._id)
    expect(between).not.toContain(t2._id)
    const since = await transfers(range(t2.createdAt))
    expect(since).toContain(t2._id)
    expect(since).not.toContain(t1._id)
  })
})
