// The platform's own transactions that a restored database does not know, on a real database and
// the dev chain: a transaction a never-exported custodial key signed halts its coin
// (unknown_platform_transfer) instead of debiting the owner, is listed for operators, and its
// re-attach leaves the ledger exactly as a withdrawal recorded before the loss (once, never a second
// debit), whether the withdrawal is recreated or one the copy had open is named; marked external it
// is booked as an outside withdrawal; every error and permission answered by its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'
import { adminCalls, openHalt, signedInLostTimeline } from './support.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Restore drill: withdrawal signed after the backup'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  await t?.close()
})

const api = () => adminCalls(t, () => admin.token)
const db = () => t.database.db

/** A user with 1 AVAX whose address holds platform gas already (a first withdrawal brought it). */
async function warmUser(payer: number) {
  const user = await createUser(t)
  await fundUser(t, payer, user, 'avax', 1n * AVAX)
  await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
  return user
}

async function findingOf(txHash: string) {
  const page = expectOk(await api().get('/v1/admin/platform-transfers?status=open&limit=100'))
  return page.data.find((f: { txHash: string }) => f.txHash === txHash)
}

async function resume(coin: string) {
  await t.app.services.settlement.halts.resume(coin, admin.id, 'findings resolved')
}

describe('a transaction a never-exported key signed that the database does not know', () => {
  it('halts the coin and debits nobody; re-attached, the ledger is as if the withdrawal had been recorded', async () => {
    const reference = await warmUser(1)
    const user = await warmUser(2)
    // The reference withdraws 0.2 AVAX the ordinary way.
    await withdrawAvax(t, reference, 0.2, freshAddress())
    await settleAll(t)
    const before = await balanceOf(t, user.id, 'avax')
    const to = freshAddress()

    const txHash = await signedInLostTimeline(t, user, 'avax', to, 2n * 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')
    expect(await balanceOf(t, user.id, 'avax')).toBe(before)
    const outside = await db().selectFrom('transactions').select('id').where('txHash', '=', txHash).execute()
    expect(outside, 'no record of a transfer signed outside the platform').toEqual([])

    const finding = await findingOf(txHash)
    expect(finding).toMatchObject({
      status: 'open',
      address: (await walletAddress(t, user)).toLowerCase(),
      ownerKind: 'user',
      ownerId: user.id,
      coin: 'avax',
      decimals: 18,
      amount: '200000000000000000',
      to: to.toLowerCase(),
      prefill: {
        ownerId: user.id,
        to: to.toLowerCase(),
        amount: '200000000000000000',
        fee: '1000000000000000',
      },
      actions: { reattach: true, external: true },
    })
    expect(BigInt(finding.gasFee)).toBeGreaterThan(0n)
    expectOk(await api().get(`/v1/admin/platform-transfers/${finding._id}`))
    // The coin stays halted while the finding is open: resumed, the user could withdraw again
    // the value the lost transaction already paid out.
    const early = await api().post('/v1/admin/coins/avax/resume', { reason: 'back to normal' })
    expectError(early, 409, 'PLATFORM_TRANSFERS_OPEN')
    expect(early.json().data.open).toBe(1)
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')

    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }),
    )
    expect(done).toMatchObject({ status: 'reattached', resolvedBy: admin.id, resolveReason: reason })
    expect(done.withdrawalId).toEqual(expect.any(String))
    await t.drain()
    const w = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', done.withdrawalId)
      .executeTakeFirstOrThrow()
    expect(w).toMatchObject({ ownerId: user.id, status: 'completed', txHash, amount: '200000000000000000' })
    // Exactly as the reference, whose withdrawal was recorded: amount and fee gone, once.
    expect(await balanceOf(t, user.id, 'avax')).toBe(await balanceOf(t, reference.id, 'avax'))
    const [audit] = await auditRows(t, 'platform-transfer.reattach')
    expect(audit).toMatchObject({ actorId: admin.id, targetId: finding._id, reason })

    // Twice is refused; resumed, the chain and the ledger agree and nothing parked is left.
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }),
      409,
      'PLATFORM_TRANSFER_RESOLVED',
    )
    await resume('avax')
    await settleAll(t)
    await expectConsistent(t)
    expect(await balanceOf(t, user.id, 'avax')).toBe(await balanceOf(t, reference.id, 'avax'))
    const parked = await db()
      .selectFrom('chainEvents')
      .select('txHash')
      .where('held', 'is not', null)
      .execute()
    expect(parked).toEqual([])
  })

  it('settles the open withdrawal the copy had when it is named, and never sends it again', async () => {
    const user = await warmUser(3)
    const to = freshAddress()
    // The copy has the withdrawal queued (its sender never ran here); the lost timeline sent it.
    const { withdrawalId, transferId } = await withdrawAvax(t, user, 0.1, to)
    const other = await withdrawAvax(t, user, 0.05, freshAddress())
    const txHash = await signedInLostTimeline(t, user, 'avax', to, 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    const finding = await findingOf(txHash)
    expect(finding).toBeDefined()

    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, {
        reason,
        withdrawalId: other.withdrawalId,
      }),
      422,
      'PLATFORM_TRANSFER_MISMATCH',
    )
    // Without a name it is not recreated beside the open one (which would then be paid again).
    const unnamed = await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason })
    expectError(unnamed, 409, 'PLATFORM_TRANSFER_MATCHES_OPEN_WITHDRAWAL')
    expect(unnamed.json().data.withdrawalIds).toEqual([withdrawalId])
    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason, withdrawalId }),
    )
    expect(done).toMatchObject({ status: 'reattached', withdrawalId, transferId })
    const address = await walletAddress(t, user)
    const nonceAfterReattach = await t.app.services.chain.getNonce(address, 'latest')
    await resume('avax')
    await settleAll(t)
    const w = await db()
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(w).toMatchObject({ status: 'completed', txHash })
    // Only the other withdrawal was signed and sent since: the named one was not paid twice.
    expect(await t.app.services.chain.getNonce(address, 'latest')).toBe(nonceAfterReattach + 1)
    await expectConsistent(t)
  })

  it('marked external, it is booked as a transfer signed outside the platform once the coin resumes', async () => {
    const user = await warmUser(4)
    const before = await balanceOf(t, user.id, 'avax')
    const txHash = await signedInLostTimeline(t, user, 'avax', freshAddress(), 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    const finding = await findingOf(txHash)
    // Halted and open, nothing of it is booked yet.
    await t.app.services.settlement.watcher.scanNow()
    expect(await balanceOf(t, user.id, 'avax')).toBe(before)
    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/external`, { reason }),
    )
    expect(done).toMatchObject({ status: 'external', actions: { reattach: false, external: false } })
    await resume('avax')
    await t.app.services.settlement.watcher.scanNow()
    const records = await db()
      .selectFrom('transactions')
      .select(['description', 'isExternal'])
      .where('txHash', '=', txHash)
      .execute()
    expect(records.map((r) => r.description).join(' ')).toMatch(/signed outside the platform/)
    expect(await balanceOf(t, user.id, 'avax')).toBeLessThan(before - 10n ** 17n + 1n)
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/external`, { reason }),
      409,
      'PLATFORM_TRANSFER_RESOLVED',
    )
    const [audit] = await auditRows(t, 'platform-transfer.external')
    expect(audit).toMatchObject({ targetId: finding._id, reason })
    await expectConsistent(t)
  })
})

describe('what cannot be re-attached', () => {
  it('refuses a transaction that moved no value, and one whose gas the address holds no platform value for', async () => {
    const warm = await warmUser(5)
    const cold = await createUser(t)
    await fundUser(t, 6, cold, 'avax', 1n * AVAX)
    // Moved nothing (its nonce taken by a self-transfer of 0): no withdrawal to recreate.
    const nothing = await signedInLostTimeline(t, warm, 'avax', await walletAddress(t, warm), 0n)
    // From a funded address that never sent: the platform holds no gas value there (its top-up,
    // too, would be a transaction the copy lost).
    const unpaid = await signedInLostTimeline(t, cold, 'avax', freshAddress(), 10n ** 17n)
    await t.app.services.settlement.watcher.scanNow()
    const a = await findingOf(nothing)
    const b = await findingOf(unpaid)
    expect(a).toMatchObject({ amount: '0', actions: { reattach: false, external: true } })
    expectError(
      await api().post(`/v1/admin/platform-transfers/${a._id}/reattach`, { reason }),
      422,
      'PLATFORM_TRANSFER_NOT_A_WITHDRAWAL',
    )
    const before = await balanceOf(t, cold.id, 'avax')
    expectError(
      await api().post(`/v1/admin/platform-transfers/${b._id}/reattach`, { reason }),
      422,
      'PLATFORM_TRANSFER_GAS_SHORT',
    )
    // Refused as a whole: no withdrawal, no hold, the finding still open.
    expect(await balanceOf(t, cold.id, 'avax')).toBe(before)
    const made = await db().selectFrom('withdrawals').select('id').where('ownerId', '=', cold.id).execute()
    expect(made).toEqual([])
    expect(expectOk(await api().get(`/v1/admin/platform-transfers/${b._id}`)).status).toBe('open')
    for (const f of [a, b])
      expectOk(await api().post(`/v1/admin/platform-transfers/${f._id}/external`, { reason }))
    await resume('avax')
    await t.app.services.settlement.watcher.scanNow()
    await expectConsistent(t)
  })
})

describe('errors and permissions', () => {
  it('answers 401 without a token and 403 to a user and to an admin without a fresh second factor', async () => {
    const user = await createUser(t)
    const plain = await createAdmin(t, run, 1, false)
    const id = '65f1c0a2b3c4d5e6f7a8b9d1'
    const routes: [string, string, Record<string, unknown>?][] = [
      ['GET', '/v1/admin/platform-transfers'],
      ['GET', `/v1/admin/platform-transfers/${id}`],
      ['POST', `/v1/admin/platform-transfers/${id}/reattach`, { reason }],
      ['POST', `/v1/admin/platform-transfers/${id}/external`, { reason }],
      ['GET', '/v1/admin/parked-jobs'],
      ['POST', `/v1/admin/parked-jobs/${id}/release`, { reason }],
      ['POST', `/v1/admin/parked-jobs/${id}/drop`, { reason }],
    ]
    for (const [method, url, payload] of routes) {
      const send = (token?: string) =>
        t.req({ method: method as 'GET', url, ...(payload ? { payload } : {}), ...(token ? { token } : {}) })
      expectError(await send(), 401, 'UNAUTHENTICATED')
      expectError(await send(user.token), 403, 'FORBIDDEN')
      expectError(await send(plain.token), 403, 'FORBIDDEN')
    }
  })

  it('answers 404 for an unknown id and 400 for a body out of shape', async () => {
    const id = '65f1c0a2b3c4d5e6f7a8b9d1'
    expectError(await api().get(`/v1/admin/platform-transfers/${id}`), 404, 'NOT_FOUND')
    expectError(await api().post(`/v1/admin/platform-transfers/${id}/reattach`, { reason }), 404, 'NOT_FOUND')
    expectError(await api().post(`/v1/admin/platform-transfers/${id}/external`, { reason }), 404, 'NOT_FOUND')
    expectError(await api().post(`/v1/admin/platform-transfers/${id}/reattach`, {}), 400, 'VALIDATION_ERROR')
    expectError(
      await api().post(`/v1/admin/platform-transfers/${id}/reattach`, { reason, fee: '-1' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await api().post(`/v1/admin/platform-transfers/${id}/reattach`, { reason, extra: 1 }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await api().get('/v1/admin/platform-transfers?status=gone'), 400, 'VALIDATION_ERROR')
  })
})
