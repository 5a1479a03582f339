// Restore mode on a real database and the dev chain: entering it parks every queued job with an
// outside effect (no worker runs them), ends operators' sessions and step-ups, and reports the
// backup's block, the chain's head, the platform's own transaction after it that the database does
// not know (address and nonce against the database's next nonce) and the deposit after it; parked
// jobs are released or dropped by operators, audited; the watcher then credits the later deposit
// once and halts the unknown transfer's coin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { reportText } from '../../src/modules/restore/service.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom } from '../helpers/money.ts'
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
const reason = 'Restore drill: reviewed'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  await t?.close()
})

/** Mails delivered to the outbox (read without running any job). */
async function mailsTo(email: string) {
  const rows = await t.database.db
    .selectFrom('mails')
    .select('id')
    .where('toAddress', '=', email.toLowerCase())
    .execute()
  return rows.length
}

describe('restore mode', () => {
  it('parks, signs operators out and reports what the chain holds after the backup', async () => {
    const user = await createUser(t)
    await fundUser(t, 1, user, 'avax', 1n * AVAX)
    await withdrawAvax(t, user, 0.01, freshAddress())
    // Another user's wallet, funded but never sent from (no gas parked at it yet).
    const other = await createUser(t)
    await fundUser(t, 3, other, 'avax', 1n * AVAX)
    await settleAll(t)
    const address = (await walletAddress(t, user)).toLowerCase()
    const cursor = await t.app.services.settlement.watcher.cursor()

    // What the copy holds queued: a withdrawal to send, a mail to deliver, and the gas top-up the
    // other user's first withdrawal asked for.
    const queued = await withdrawAvax(t, user, 0.05, freshAddress())
    const waiting = await withdrawAvax(t, other, 0.05, freshAddress())
    await t.app.services.outgoing.run(waiting.transferId)
    const otherAddress = (await walletAddress(t, other)).toLowerCase()
    const mailsBefore = await mailsTo(user.email)
    expectOk(await t.req({ method: 'POST', url: '/v1/account/2fa/email', token: user.token, payload: {} }))
    // What the chain holds past the copy's last block: the platform's own transaction the copy
    // never recorded, and a deposit.
    const lost = await signedInLostTimeline(t, user, 'avax', freshAddress(), 10n ** 17n)
    const payer = t.app.services.chain.devnet!.accounts[2]!
    await sendFrom(t, payer, address, 'avax', 3n * 10n ** 17n)
    const before = await balanceOf(t, user.id, 'avax')

    const { nextNonce } = await t.database.db
      .selectFrom('outgoingNonces')
      .select('nextNonce')
      .where('address', '=', address)
      .executeTakeFirstOrThrow()
    const report = await t.app.services.restore.service.enter()
    expect(report.chain.cursor?.number).toBe(cursor!.number.toString())
    expect(report.chain.cursorOnChain).toBe(true)
    expect(BigInt(report.chain.head)).toBeGreaterThan(cursor!.number)
    expect(report.backupTime).toEqual(expect.any(String))
    expect(report.chain.unknownPlatformTransfers).toEqual([
      expect.objectContaining({
        txHash: lost,
        address,
        ownerKind: 'user',
        ownerId: user.id,
        // the first nonce the copy never gave out: signed after the backup
        nonce: nextNonce,
        databaseNextNonce: nextNonce,
        coin: 'avax',
        amount: (10n ** 17n).toString(),
      }),
    ])
    expect(report.chain.deposits).toEqual([
      expect.objectContaining({
        address,
        ownerId: user.id,
        coin: 'avax',
        amount: (3n * 10n ** 17n).toString(),
        // from an outside account, not one of the platform's own signers
        fromPlatform: null,
      }),
    ])
    expect(report.parkedNow['outgoing.send']).toBeGreaterThanOrEqual(1)
    expect(report.parkedNow['outgoing.topup']).toBe(1)
    expect(report.parkedNow['mail.send']).toBeGreaterThanOrEqual(1)
    expect(report.operatorsSignedOut).toBeGreaterThanOrEqual(1)
    expect(report.elevationsEnded).toBeGreaterThanOrEqual(1)
    const text = reportText(report).join('\n')
    expect(text).toContain(lost)
    expect(text).toMatch(/rewound the dev chain together with the ledger/)
    expect(text).toMatch(/re-attach each to its withdrawal/)

    // The operator's session is over; nothing parked runs.
    expectError(
      await t.req({ method: 'GET', url: '/v1/admin/parked-jobs', token: admin.token }),
      401,
      'UNAUTHENTICATED',
    )
    await t.drain()
    const transfer = await t.database.db
      .selectFrom('outgoingTransfers')
      .select('status')
      .where('id', '=', queued.transferId)
      .executeTakeFirstOrThrow()
    expect(transfer.status).toBe('queued')
    expect(await mailsTo(user.email)).toBe(mailsBefore)

    // A new session reviews the parked jobs.
    const reviewer = await createAdmin(t, run, 2)
    const api = adminCalls(t, () => reviewer.token)
    const page = expectOk(await api.get('/v1/admin/parked-jobs?limit=100'))
    const send = page.data.find(
      (j: { kind: string; about: { id?: string } }) =>
        j.kind === 'outgoing.send' && j.about.id === queued.transferId,
    )
    const mail = page.data.find(
      (j: { kind: string; about: { to?: string } }) =>
        j.kind === 'mail.send' && j.about.to === user.email.toLowerCase(),
    )
    expect(send).toBeDefined()
    expect(mail).toMatchObject({ about: { to: user.email.toLowerCase(), subject: expect.any(String) } })
    expect(JSON.stringify(mail)).not.toMatch(/\b\d{6}\b/)
    expectOk(await api.get('/v1/admin/parked-jobs?kind=mail.send'))

    expectError(
      await api.post(`/v1/admin/parked-jobs/${send._id}/drop`, { reason }),
      409,
      'PARKED_TRANSFER_NOT_DROPPABLE',
    )
    expect(expectOk(await api.post(`/v1/admin/parked-jobs/${mail._id}/drop`, { reason }))).toMatchObject({
      _id: mail._id,
      kind: 'mail.send',
    })
    expectError(await api.post(`/v1/admin/parked-jobs/${mail._id}/drop`, { reason }), 404, 'NOT_FOUND')
    expectError(
      await api.post('/v1/admin/parked-jobs/65f1c0a2b3c4d5e6f7a8b9d1/release', { reason }),
      404,
      'NOT_FOUND',
    )
    expectError(await api.post(`/v1/admin/parked-jobs/${send._id}/release`, {}), 400, 'VALIDATION_ERROR')
    // Its address has a mined transaction this copy does not know (the lost one): it may be the
    // very transfer already paid, so it is not released before that one is re-attached.
    const early = await api.post(`/v1/admin/parked-jobs/${send._id}/release`, { reason })
    expectError(early, 409, 'PARKED_TRANSFER_NONCES_AHEAD')
    expect(early.json().data.from).toBe(address)
    expect(await auditRows(t, 'parked-job.drop')).toEqual([
      expect.objectContaining({ targetId: mail._id, reason }),
    ])
    expect(await auditRows(t, 'parked-job.release')).toEqual([])

    // The watcher carries on from the backup's block: the unknown transfer halts the coin, so the
    // deposit after it is recorded once and parked with it.
    await t.app.services.settlement.watcher.scanNow()
    await t.app.services.settlement.watcher.scanNow()
    expect((await openHalt(t, 'avax'))?.reason).toBe('unknown_platform_transfer')
    expect(await balanceOf(t, user.id, 'avax')).toBe(before)
    const deposits = () =>
      t.database.db
        .selectFrom('chainEvents')
        .select(['txHash', 'held', 'transferId'])
        .where('address', '=', address)
        .where('kind', '=', 'deposit')
        .where('amount', '=', (3n * 10n ** 17n).toString())
        .execute()
    expect(await deposits()).toEqual([expect.objectContaining({ held: expect.anything(), transferId: null })])

    // Re-attached and resumed: the deposit is credited once, the released withdrawal is sent at the
    // next nonce, and the ledger matches the chain.
    const [finding] = expectOk(await api.get('/v1/admin/platform-transfers?status=open')).data
    expect(finding.txHash).toBe(lost)
    expectOk(await api.post(`/v1/admin/platform-transfers/${finding._id}/reattach`, { reason }))
    // Re-attached, the copy knows every nonce of the address: the parked transfer may go.
    expectOk(await api.post(`/v1/admin/parked-jobs/${send._id}/release`, { reason }))
    expectError(
      await api.post(`/v1/admin/parked-jobs/${send._id}/release`, { reason }),
      409,
      'JOB_NOT_PARKED',
    )
    expect(await auditRows(t, 'parked-job.release')).toEqual([
      expect.objectContaining({ targetId: send._id, reason }),
    ])
    // A parked gas top-up is a transfer too: never dropped (the transfer waiting for it would wait
    // for good), released once reviewed; its settlement wakes the other user's withdrawal.
    const topUp = expectOk(await api.get('/v1/admin/parked-jobs?kind=outgoing.topup&limit=100')).data
    expect(topUp).toHaveLength(1)
    const [topUpTransfer] = await t.database.db
      .selectFrom('outgoingTransfers')
      .select('id')
      .where('purpose', '=', 'gas.topup')
      .where('toAddress', '=', otherAddress)
      .execute()
    expect(topUp[0].about.id).toBe(topUpTransfer!.id)
    expectError(
      await api.post(`/v1/admin/parked-jobs/${topUp[0]._id}/drop`, { reason }),
      409,
      'PARKED_TRANSFER_NOT_DROPPABLE',
    )
    expectOk(await api.post(`/v1/admin/parked-jobs/${topUp[0]._id}/release`, { reason }))
    await t.app.services.settlement.halts.resume('avax', reviewer.id, reason)
    await settleAll(t)
    await t.app.services.settlement.watcher.scanNow()
    expect(await deposits()).toEqual([
      expect.objectContaining({ held: null, transferId: expect.any(String) }),
    ])
    const sent = await t.database.db
      .selectFrom('outgoingTransfers')
      .select(['status', 'nonce'])
      .where('id', '=', queued.transferId)
      .executeTakeFirstOrThrow()
    expect(sent).toEqual({ status: 'completed', nonce: nextNonce + 1 })
    const otherSent = await t.database.db
      .selectFrom('outgoingTransfers')
      .select('status')
      .where('id', '=', waiting.transferId)
      .executeTakeFirstOrThrow()
    expect(otherSent.status).toBe('completed')
    await expectConsistent(t)
  })
})
