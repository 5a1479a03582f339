// A fee sweep the platform sent in a timeline a restore lost, on a real database and the dev chain:
// the fee address paid the coin's cold address and the copy has no record of the sweep (recreated
// by the re-attach), or has it queued (settled by the re-attach, never sent again). Either way the
// fee account loses the amount exactly once, the sweep is confirmed with the transaction, the ledger
// balances and reconciliation passes once the coin resumes; every refusal by its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { initiate, post, sendFrom, settleAll } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX } from '../helpers/money.ts'
import { freshAddress } from '../withdrawals/helpers.ts'
import { expectReconciled, lostSend, lostTopUp, openFinding, parkedLeft, scan } from './payout-support.ts'
import { adminCalls, openHalt } from './support.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Restore drill: fee sweep sent after the backup'
const cold = freshAddress().toLowerCase()

beforeAll(async () => {
  t = await createTestApp({ env: { ...adminEnv(run), FEE_SWEEP_ADDRESS: cold } })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  await t?.close()
})

const api = () => adminCalls(t, () => admin.token)
const db = () => t.database.db
const chain = () => t.app.services.chain
const feeAddress = () => t.app.services.fees.feeAddress
const feeAccount = async () =>
  (await t.app.services.ledger.accountsOf(db(), 'treasury', 'fees')).avax ?? { balance: 0n, held: 0n }
const resume = () => t.app.services.settlement.halts.resume('avax', admin.id, 'findings resolved')
const sweepsTo = () =>
  db().selectFrom('feeSweeps').selectAll().where('toAddress', '=', cold).orderBy('createdAt').execute()

/** An escrow paid from outside and released: its platform fee lands at the fee address. */
async function collectFee(payerIndex: number) {
  const payer = await createUser(t)
  const receiver = await createUser(t)
  const q = await initiate(t, payer, receiver)
  await sendFrom(t, chain().devnet!.accounts[payerIndex]!, q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
    'paid',
  )
  expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
  await settleAll(t)
  const account = await feeAccount()
  expect(account.balance).toBeGreaterThan(0n)
  return account.balance
}

describe('a fee sweep the lost timeline sent', () => {
  it('recreated when the copy has none: the fee account pays it once and the sweep is confirmed', async () => {
    const balance = await collectFee(1)
    const amount = balance / 2n
    const coldBefore = await chain().balanceOf(cold, 'avax')
    await lostTopUp(t, feeAddress(), AVAX / 100n)
    const txHash = await lostSend(t, feeAddress(), 'avax', cold, amount)
    await scan(t)
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')
    expect((await feeAccount()).balance).toBe(balance)

    const finding = await openFinding(api(), txHash)
    expect(finding).toMatchObject({
      ownerKind: 'treasury',
      ownerId: 'fees',
      address: feeAddress(),
      amount: amount.toString(),
      to: cold,
      candidates: [],
      prefill: { recreates: 'feeSweep' },
      // a sweep to the cold address is re-attached (recreated), never booked as a loss
      actions: { reattach: true, external: true, loss: false },
    })
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/loss`, { reason }),
      422,
      'PLATFORM_TRANSFER_LOSS_REFUSED',
    )
    expect((await feeAccount()).balance).toBe(balance)
    const url = `/v1/admin/platform-transfers/${finding._id}/reattach`
    // A sweep the copy does not hold, or a leg: refused, nothing written.
    const someId = '65f1c0a2b3c4d5e6f7a8b9d1'
    expectError(await api().post(url, { reason, sweepId: someId }), 422, 'PLATFORM_TRANSFER_MISMATCH')
    expectError(await api().post(url, { reason, legId: someId }), 422, 'PLATFORM_TRANSFER_MISMATCH')
    expect(await sweepsTo()).toEqual([])

    const done = expectOk(await api().post(url, { reason }))
    expect(done).toMatchObject({ status: 'reattached', record: { kind: 'feeSweep' } })
    const [audit] = await auditRows(t, 'platform-transfer.reattach')
    expect(audit).toMatchObject({ targetId: finding._id, reason })
    expect(audit!.details).toMatchObject({ recreated: true, transferId: done.transferId })
    expectError(await api().post(url, { reason }), 409, 'PLATFORM_TRANSFER_RESOLVED')

    await t.drain()
    const [sweep] = await sweepsTo()
    expect(sweep).toMatchObject({
      id: done.record.id,
      status: 'confirmed',
      txHash,
      amount: amount.toString(),
      fromAddress: feeAddress(),
      requestedBy: admin.id,
      reason,
      outgoingId: done.transferId,
    })
    expect(await feeAccount()).toMatchObject({ balance: balance - amount, held: 0n })

    await resume()
    await settleAll(t)
    expect(await chain().balanceOf(cold, 'avax')).toBe(coldBefore + amount)
    expect(await feeAccount()).toMatchObject({ balance: balance - amount, held: 0n })
    expect(await sweepsTo()).toHaveLength(1)
    expect(await parkedLeft(t)).toEqual([])
    await expectReconciled(t, api())
  })

  it('the copy’s queued sweep is settled by the transaction and never sent again', async () => {
    await collectFee(2)
    const { balance } = await feeAccount()
    const amount = balance / 3n
    const coldBefore = await chain().balanceOf(cold, 'avax')
    // The copy: the sweep requested and queued; the lost timeline sent it.
    const queued = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/admin/fees/sweep',
        token: admin.token,
        payload: { coin: 'avax', amount: amount.toString(), reason: 'Monthly sweep' },
      }),
    )
    const nonceBefore = await chain().getNonce(feeAddress(), 'latest')
    await lostTopUp(t, feeAddress(), AVAX / 100n)
    const txHash = await lostSend(t, feeAddress(), 'avax', cold, amount)
    await scan(t)
    const finding = await openFinding(api(), txHash)
    expect(finding.prefill.recreates).toBeNull()
    expect(finding.candidates).toEqual([
      expect.objectContaining({ kind: 'feeSweep', id: queued._id, what: 'sweep', transferStatus: 'queued' }),
    ])
    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, {
        reason,
        sweepId: queued._id,
      }),
    )
    expect(done).toMatchObject({
      record: { kind: 'feeSweep', id: queued._id },
      transferId: queued.transferId,
    })

    await resume()
    await settleAll(t)
    const sweep = await db()
      .selectFrom('feeSweeps')
      .selectAll()
      .where('id', '=', queued._id)
      .executeTakeFirstOrThrow()
    expect(sweep).toMatchObject({ status: 'confirmed', txHash })
    // Sent once: the fee address signed one transaction, the cold address got the amount once.
    expect(await chain().getNonce(feeAddress(), 'latest')).toBe(nonceBefore + 1)
    expect(await chain().balanceOf(cold, 'avax')).toBe(coldBefore + amount)
    expect(await feeAccount()).toMatchObject({ balance: balance - amount, held: 0n })
    expect(await parkedLeft(t)).toEqual([])
    await expectReconciled(t, api())
  })

  it('paid somewhere else than the cold address, it matches nothing and is booked as a loss', async () => {
    const { balance } = await feeAccount()
    const elsewhere = freshAddress().toLowerCase()
    await lostTopUp(t, feeAddress(), AVAX / 100n)
    const txHash = await lostSend(t, feeAddress(), 'avax', elsewhere, balance)
    await scan(t)
    const finding = await openFinding(api(), txHash)
    expect(finding).toMatchObject({
      candidates: [],
      prefill: { recreates: null },
      actions: { reattach: false, loss: true },
    })
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }),
      422,
      'PLATFORM_TRANSFER_UNMATCHED',
    )
    const done = expectOk(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/loss`, {
        reason: 'Swept to the old cold address before the restore',
      }),
    )
    expect(done.status).toBe('lost')
    expect(await feeAccount()).toMatchObject({ balance: 0n, held: 0n })
    await resume()
    await settleAll(t)
    await expectReconciled(t, api())
  })
})
