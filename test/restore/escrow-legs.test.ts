// An escrow's leg that the platform sent in a timeline a restore lost, on a real database and the
// dev chain: the copy has the release recorded (the legs queued) but not the sending. The
// transaction halts the coin and is listed with the open legs it may have paid; re-attached, the
// leg is paid exactly once (its hold posted, never sent again), the escrow is released as a normal
// release would be, the ledger balances and reconciliation passes once the coin resumes. Several
// legs that match are the operator's choice; none is booked as a loss; every refusal by its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { initiate, post, sendFrom, settleAll } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, balanceOf, walletAddress } from '../helpers/money.ts'
import { freshAddress, fundUser } from '../withdrawals/helpers.ts'
import { expectReconciled, lostSend, lostTopUp, openFinding, parkedLeft, scan } from './payout-support.ts'
import { adminCalls, openHalt } from './support.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Restore drill: escrow leg sent after the backup'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  await t?.close()
})

const api = () => adminCalls(t, () => admin.token)
const db = () => t.database.db
const chain = () => t.app.services.chain
const resume = () => t.app.services.settlement.halts.resume('avax', admin.id, 'findings resolved')

/** A paid escrow of `amount` USD in AVAX between two new users (dev account `payer` pays it). */
async function paidEscrow(payerIndex: number, amount = 100) {
  const payer = await createUser(t)
  const receiver = await createUser(t)
  const q = await initiate(t, payer, receiver, { amount })
  await sendFrom(t, chain().devnet!.accounts[payerIndex]!, q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status, v.body).toBe('paid')
  return { payer, receiver, q, address: String(q.address).toLowerCase() }
}

const legsOf = (escrowId: string) =>
  db().selectFrom('escrowLegs').selectAll().where('escrowId', '=', escrowId).orderBy('seq').execute()
const escrowOf = (id: string) =>
  db().selectFrom('escrows').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
/** The escrow account's balance (what its legs' pending holds reserve included). */
const escrowBalance = async (id: string) =>
  (await t.app.services.ledger.accountsOf(db(), 'escrow', id)).avax?.balance ?? 0n
const onChain = (address: string) => chain().balanceOf(address, 'avax')

describe('an escrow leg the lost timeline sent', () => {
  it('is listed with its leg, and re-attached the leg is paid once and the escrow released', async () => {
    const { payer, receiver, q, address } = await paidEscrow(1)
    // The copy: the release recorded, its legs queued; nothing of it sent yet.
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const legs = await legsOf(q.escrowId)
    const payout = legs.find((l) => l.kind === 'payout')!
    const other = legs.find((l) => l.kind !== 'payout' && BigInt(l.amount) !== BigInt(payout.amount))!
    expect(payout.toAddress).toBe((await walletAddress(t, receiver)).toLowerCase())
    const receiverBefore = await balanceOf(t, receiver.id, 'avax')
    const receiverChainBefore = await onChain(payout.toAddress)
    const escrowBefore = await escrowBalance(q.escrowId)

    // The lost timeline: the gas wallet topped the escrow's address up, then the payout was sent.
    await lostTopUp(t, address, AVAX / 100n)
    const txHash = await lostSend(t, address, 'avax', payout.toAddress, BigInt(payout.amount))
    await scan(t)
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')
    // Nothing is booked yet: not the escrow's value, not the receiver's credit.
    expect(await escrowBalance(q.escrowId)).toBe(escrowBefore)
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore)

    const finding = await openFinding(api(), txHash)
    expect(finding).toMatchObject({
      ownerKind: 'escrow',
      ownerId: q.escrowId,
      amount: payout.amount,
      to: payout.toAddress,
      record: null,
      prefill: { recreates: null, fee: null },
      // a leg it paid is open: booked as a loss, the leg would be sent a second time
      actions: { reattach: true, external: true, loss: false },
      candidates: [
        {
          kind: 'escrowLeg',
          id: payout.id,
          what: 'payout',
          to: payout.toAddress,
          amount: payout.amount,
          transferId: payout.outgoingId,
          transferStatus: 'queued',
        },
      ],
    })
    expectError(await api().post('/v1/admin/coins/avax/resume', { reason }), 409, 'PLATFORM_TRANSFERS_OPEN')
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/loss`, { reason }),
      422,
      'PLATFORM_TRANSFER_LOSS_REFUSED',
    )
    expect(await escrowBalance(q.escrowId)).toBe(escrowBefore)

    // A leg of another amount, a sweep or a withdrawal named: refused, nothing written.
    const url = `/v1/admin/platform-transfers/${finding._id}/reattach`
    for (const named of [{ legId: other.id }, { sweepId: other.id }, { withdrawalId: other.id }])
      expectError(await api().post(url, { reason, ...named }), 422, 'PLATFORM_TRANSFER_MISMATCH')
    expect(expectOk(await api().get(`/v1/admin/platform-transfers/${finding._id}`)).status).toBe('open')

    const done = expectOk(await api().post(url, { reason }))
    expect(done).toMatchObject({
      status: 'reattached',
      record: { kind: 'escrowLeg', id: payout.id },
      transferId: payout.outgoingId,
      withdrawalId: null,
      candidates: [],
      actions: { reattach: false, external: false, loss: false },
    })
    const [audit] = await auditRows(t, 'platform-transfer.reattach')
    expect(audit).toMatchObject({ actorId: admin.id, targetId: finding._id, reason })
    expect(JSON.stringify(audit!.details)).toContain(payout.id)
    expectError(await api().post(url, { reason }), 409, 'PLATFORM_TRANSFER_RESOLVED')
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/loss`, { reason }),
      409,
      'PLATFORM_TRANSFER_RESOLVED',
    )

    // The leg's outcome runs as a normal release's: the leg paid with the lost transaction.
    await t.drain()
    const paid = (await legsOf(q.escrowId)).find((l) => l.id === payout.id)!
    expect(paid).toMatchObject({ status: 'completed', txHash })
    expect(await escrowBalance(q.escrowId)).toBe(escrowBefore - BigInt(payout.amount))

    // Resumed, the other legs go out; the escrow is released, the payout never sent again.
    await resume()
    await settleAll(t)
    expect((await escrowOf(q.escrowId)).status).toBe('released')
    expect((await legsOf(q.escrowId)).every((l) => l.status === 'completed')).toBe(true)
    expect(await chain().getNonce(address, 'latest')).toBe(legs.length)
    expect(await onChain(payout.toAddress)).toBe(receiverChainBefore + BigInt(payout.amount))
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore + BigInt(payout.amount))
    // The receiver's one record of it is the leg's (no outside deposit beside it).
    const records = await db()
      .selectFrom('transactions')
      .select(['id', 'description', 'status'])
      .where('ownerId', '=', receiver.id)
      .where('txHash', '=', txHash)
      .execute()
    expect(records).toEqual([
      expect.objectContaining({ status: 'completed', description: expect.stringMatching(/Escrow payout/) }),
    ])
    expect(await parkedLeft(t)).toEqual([])
    await expectReconciled(t, api())
  })

  it('lets the operator choose among legs that match, and sends the other one', async () => {
    const { payer, receiver, q, address } = await paidEscrow(2)
    const part = (amount: number) =>
      post(t, payer, '/v1/payment/release', { collection: q.collectionId, amount })
    expect((await part(25)).statusCode).toBe(200)
    expect((await part(25)).statusCode).toBe(200)
    const payouts = (await legsOf(q.escrowId)).filter((l) => l.kind === 'payout')
    expect(payouts).toHaveLength(2)
    expect(payouts[0]!.amount).toBe(payouts[1]!.amount)
    const [first, second] = payouts as [(typeof payouts)[0], (typeof payouts)[0]]
    const receiverBefore = await balanceOf(t, receiver.id, 'avax')

    await lostTopUp(t, address, AVAX / 100n)
    const txHash = await lostSend(t, address, 'avax', first.toAddress, BigInt(first.amount))
    await scan(t)
    const finding = await openFinding(api(), txHash)
    expect(finding.candidates.map((c: { id: string }) => c.id)).toEqual([first.id, second.id])
    const url = `/v1/admin/platform-transfers/${finding._id}/reattach`
    const unnamed = await api().post(url, { reason })
    expectError(unnamed, 409, 'PLATFORM_TRANSFER_AMBIGUOUS')
    expect(unnamed.json().data.candidates).toEqual([first.id, second.id])
    // The operator's choice (here the second): that leg is paid by the transaction.
    const done = expectOk(await api().post(url, { reason, legId: second.id }))
    expect(done.record).toEqual({ kind: 'escrowLeg', id: second.id })

    await resume()
    await settleAll(t)
    const after = await legsOf(q.escrowId)
    expect(after.find((l) => l.id === second.id)).toMatchObject({ status: 'completed', txHash })
    expect(after.find((l) => l.id === first.id)).toMatchObject({ status: 'completed' })
    expect(after.find((l) => l.id === first.id)!.txHash).not.toBe(txHash)
    expect(await chain().getNonce(address, 'latest')).toBe(after.length)
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore + 2n * BigInt(first.amount))
    await expectReconciled(t, api())
  })

  it('matched by no open leg, it is refused a re-attach and booked as a loss on the operator’s word', async () => {
    // The copy is from before the release: no leg at all.
    const { receiver, q, address } = await paidEscrow(3)
    const to = (await walletAddress(t, receiver)).toLowerCase()
    const amount = AVAX / 2n
    const escrowBefore = await escrowBalance(q.escrowId)
    const receiverBefore = await balanceOf(t, receiver.id, 'avax')
    await lostTopUp(t, address, AVAX / 100n)
    const txHash = await lostSend(t, address, 'avax', to, amount)
    await scan(t)
    const finding = await openFinding(api(), txHash)
    expect(finding).toMatchObject({
      candidates: [],
      actions: { reattach: false, external: true, loss: true },
    })
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }),
      422,
      'PLATFORM_TRANSFER_UNMATCHED',
    )
    const loss = `/v1/admin/platform-transfers/${finding._id}/loss`
    const done = expectOk(
      await api().post(loss, { reason: 'Paid by hand before the restore; settled apart' }),
    )
    expect(done).toMatchObject({ status: 'lost', record: null, resolvedBy: admin.id })
    const [audit] = await auditRows(t, 'platform-transfer.loss')
    expect(audit).toMatchObject({ actorId: admin.id, targetId: finding._id })
    expectError(await api().post(loss, { reason }), 409, 'PLATFORM_TRANSFER_RESOLVED')
    // Out of the escrow's account once; the gas from the platform's gas at the address.
    expect(await escrowBalance(q.escrowId)).toBe(escrowBefore - amount)
    await resume()
    await settleAll(t)
    // What arrived at the receiver's address is the receiver's, credited once.
    expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore + amount)
    expect(await escrowBalance(q.escrowId)).toBe(escrowBefore - amount)
    expect(await parkedLeft(t)).toEqual([])
    await expectReconciled(t, api())
  })

  it('books no user address’s transaction as a loss', async () => {
    const user = await createUser(t)
    await fundUser(t, 4, user, 'avax', AVAX)
    const txHash = await lostSend(t, await walletAddress(t, user), 'avax', freshAddress(), AVAX / 10n)
    await scan(t)
    const finding = await openFinding(api(), txHash)
    expect(finding.actions).toEqual({ reattach: true, external: true, loss: false })
    expectError(
      await api().post(`/v1/admin/platform-transfers/${finding._id}/loss`, { reason }),
      422,
      'PLATFORM_TRANSFER_LOSS_REFUSED',
    )
    expectOk(await api().post(`/v1/admin/platform-transfers/${finding._id}/external`, { reason }))
    await resume()
    await scan(t)
  })
})

describe('permissions and shapes', () => {
  it('answers 401 without a token and 403 to a user and to an admin without a fresh second factor', async () => {
    const user = await createUser(t)
    const plain = await createAdmin(t, run, 1, false)
    const id = '65f1c0a2b3c4d5e6f7a8b9d1'
    const audited = (await auditRows(t)).length
    const calls: [string, Record<string, unknown>][] = [
      [`/v1/admin/platform-transfers/${id}/loss`, { reason }],
      [`/v1/admin/platform-transfers/${id}/reattach`, { reason, legId: id }],
      [`/v1/admin/platform-transfers/${id}/reattach`, { reason, sweepId: id }],
    ]
    for (const [url, payload] of calls) {
      const send = (token?: string) => t.req({ method: 'POST', url, payload, ...(token ? { token } : {}) })
      expectError(await send(), 401, 'UNAUTHENTICATED')
      expectError(await send(user.token), 403, 'FORBIDDEN')
      expectError(await send(plain.token), 403, 'FORBIDDEN')
    }
    expect(await auditRows(t)).toHaveLength(audited)
  })

  it('answers 404 for an unknown id and 400 for a body out of shape', async () => {
    const id = '65f1c0a2b3c4d5e6f7a8b9d1'
    expectError(await api().post(`/v1/admin/platform-transfers/${id}/loss`, { reason }), 404, 'NOT_FOUND')
    expectError(await api().post(`/v1/admin/platform-transfers/${id}/loss`, {}), 400, 'VALIDATION_ERROR')
    expectError(
      await api().post(`/v1/admin/platform-transfers/${id}/reattach`, { reason, legId: 'not-an-id' }),
      400,
      'VALIDATION_ERROR',
    )
    expectOk(await api().get('/v1/admin/platform-transfers?status=lost'))
  })
})
