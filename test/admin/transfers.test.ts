// The operator's outgoing transfers, withdrawals and escrow legs on a real database and the dev
// chain: who may see and act, a failing withdrawal run again and landed, a failing withdrawal
// cancelled by concurrent requests and refunded exactly once, a stuck transaction replaced now with
// higher fees and landed, and each action audited with its reason.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
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
} from '../withdrawals/helpers.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Support ticket 4711: the withdrawal is stuck'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
afterEach(async () => {
  t.app.services.chain.devnet!.setDown(false)
  await t.app.services.chain.devnet!.setAutomine(true)
})
afterAll(async () => {
  await t?.close()
})

const db = () => t.database.db

async function withdraw(user: TestUser, amount: number, to: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin: 'avax', address: to, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  const withdrawalId: string = res.json().data.withdrawalId
  const w = await db()
    .selectFrom('withdrawals')
    .selectAll()
    .where('id', '=', withdrawalId)
    .executeTakeFirstOrThrow()
  return { withdrawalId, transferId: w.outgoingId! }
}

const act = (path: string, body: Record<string, unknown> = { reason }, token = admin.token) =>
  t.req({ method: 'POST', url: path, token, payload: body })
const get = (url: string, token = admin.token) => t.req({ method: 'GET', url, token })
const transferRow = (id: string) =>
  db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

/** A user with 1 AVAX whose address holds platform gas already (a first withdrawal brought it). */
async function warmUser(payer: number) {
  const user = await createUser(t)
  await fundUser(t, payer, user, 'avax', 1n * AVAX)
  await withdraw(user, 0.01, freshAddress())
  await settleAll(t)
  return user
}

describe('who may use the money routes', () => {
  it('answers 401 without a token, 403 to a normal user and to an admin without a fresh second factor', async () => {
    const user = await createUser(t)
    const plain = await createAdmin(t, run, 1, false)
    for (const [method, url] of [
      ['GET', '/v1/admin/transfers'],
      ['GET', '/v1/admin/transfers/65f1c0a2b3c4d5e6f7a8b9d1'],
      ['POST', '/v1/admin/transfers/65f1c0a2b3c4d5e6f7a8b9d1/cancel'],
      ['GET', '/v1/admin/withdrawals'],
      ['POST', '/v1/admin/withdrawals/65f1c0a2b3c4d5e6f7a8b9d1/retry'],
      ['GET', '/v1/admin/escrow-legs'],
      ['POST', '/v1/admin/escrow-legs/65f1c0a2b3c4d5e6f7a8b9d1/replace'],
    ] as const) {
      const payload = method === 'POST' ? { reason } : undefined
      expectError(await t.req({ method, url, payload }), 401, 'UNAUTHENTICATED')
      expectError(await t.req({ method, url, payload, token: user.token }), 403, 'FORBIDDEN')
      expectError(await t.req({ method, url, payload, token: plain.token }), 403, 'FORBIDDEN')
    }
  })

  it('needs a reason for every action and answers 404 for an unknown transfer', async () => {
    expectError(await act('/v1/admin/transfers/65f1c0a2b3c4d5e6f7a8b9d1/retry', {}), 400, 'VALIDATION_ERROR')
    expectError(await act('/v1/admin/transfers/65f1c0a2b3c4d5e6f7a8b9d1/retry'), 404, 'NOT_FOUND')
    expectError(await get('/v1/admin/transfers?status=lost'), 400, 'VALIDATION_ERROR')
  })
})

describe('a failing withdrawal', () => {
  it('is listed as failing, run again by an operator once the chain is back, and lands', async () => {
    const user = await warmUser(3)
    const to = freshAddress()
    const devnet = t.app.services.chain.devnet!
    devnet.setDown(true)
    const { withdrawalId, transferId } = await withdraw(user, 0.5, to)
    await t.drain()
    devnet.setDown(false)

    const list = expectOk(await get(`/v1/admin/withdrawals?status=failing&user=${user.id}`))
    expect(list.total).toBe(1)
    const walletBefore = await balanceOf(t, user.id, 'avax')
    expect(list.data[0]).toMatchObject({
      _id: withdrawalId,
      userId: user.id,
      email: user.email,
      status: 'processing',
      retryCount: 1,
      transferId,
      transferStatus: 'queued',
      amountText: '0.5 AVAX',
      actions: { retry: true, replace: false, cancel: true },
    })
    expect(list.data[0].lastError).toMatch(/unavailable|down/i)
    const transfers = expectOk(await get(`/v1/admin/transfers?status=failing&referenceId=${withdrawalId}`))
    expect(transfers.data.map((x: { _id: string }) => x._id)).toEqual([transferId])

    // Without the operator the next run waits for its backoff; "retry" runs it now.
    const res = expectOk(await act(`/v1/admin/withdrawals/${withdrawalId}/retry`))
    expect(res.transfer._id).toBe(transferId)
    await t.drain()
    const detail = expectOk(await get(`/v1/admin/transfers/${transferId}`))
    // the attempt failed on an unreachable node: recorded, not counted toward the limit
    expect(detail).toMatchObject({
      status: 'completed',
      failures: 0,
      attempts: 1,
      actions: { retry: false, cancel: false },
    })
    expect(detail.transactions).toHaveLength(1)
    expect(detail.events.map((e: { event: string }) => e.event)).toEqual(
      expect.arrayContaining(['started', 'attempt:1', 'outcome']),
    )
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await balanceOf(t, user.id, 'avax')).toBe(walletBefore)
    const [audit] = await auditRows(t, 'withdrawal.retry')
    expect(audit).toMatchObject({
      actorId: admin.id,
      targetType: 'withdrawal',
      targetId: withdrawalId,
      reason,
    })
    expect(audit!.details).toMatchObject({ transferId, statusBefore: 'queued' })

    // Settled: nothing is run, replaced or cancelled any more.
    expectError(await act(`/v1/admin/withdrawals/${withdrawalId}/retry`), 409, 'TRANSFER_NOT_OPEN')
    expectError(await act(`/v1/admin/transfers/${transferId}/cancel`), 409, 'TRANSFER_NOT_OPEN')
    await expectConsistent(t)
  })

  it('is refunded exactly once when operators cancel it with concurrent requests', async () => {
    const user = await createUser(t)
    await fundUser(t, 4, user, 'avax', 1n * AVAX)
    const to = freshAddress()
    const devnet = t.app.services.chain.devnet!
    devnet.setDown(true)
    const { withdrawalId, transferId } = await withdraw(user, 0.4, to)
    await t.drain()
    expect((await transferRow(transferId)).status).toBe('queued')
    const auditBefore = (await auditRows(t, 'withdrawal.cancel')).length

    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2
          ? act(`/v1/admin/withdrawals/${withdrawalId}/cancel`)
          : act(`/v1/admin/transfers/${transferId}/cancel`),
      ),
    )
    devnet.setDown(false)
    const codes = answers.map((r) => r.statusCode).sort()
    expect(codes, answers.map((r) => r.body).join('\n')).toEqual([200, 409, 409, 409, 409, 409])
    await settleAll(t)

    const w = expectOk(await get(`/v1/admin/withdrawals?user=${user.id}`)).data[0]
    expect(w).toMatchObject({ _id: withdrawalId, status: 'failed', transferStatus: 'failed' })
    // The operator's reason is theirs: the customer reads a neutral message.
    expect(w.lastError).toBe('cancelled by the platform')
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(0n)
    // The withdrawal's holds (the amount's and the fee's) were voided, once; nothing was posted.
    const { holdId, feeHoldId } = await db()
      .selectFrom('withdrawals')
      .select(['holdId', 'feeHoldId'])
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    const holds = await db()
      .selectFrom('ledgerHolds')
      .selectAll()
      .where('id', 'in', [holdId!, feeHoldId!])
      .execute()
    expect(holds).toHaveLength(2)
    for (const hold of holds) expect(hold).toMatchObject({ status: 'voided', postedAmount: '0' })
    const transfer = expectOk(await get(`/v1/admin/transfers/${transferId}`))
    expect(transfer.error).toMatchObject({ data: { code: 'CANCELLED' } })
    expect(
      transfer.postings.filter((p: { ledgerTransferId: string | null }) => p.ledgerTransferId),
    ).toHaveLength(transfer.postings.filter((p: { outcome: string }) => p.outcome === 'failed').length)
    expect(transfer.events.filter((e: { event: string }) => e.event === 'outcome')).toHaveLength(1)
    const mails = await db()
      .selectFrom('mails')
      .select(['kind', 'text'])
      .where('toAddress', '=', user.email)
      .where('kind', '=', 'withdrawal_failed')
      .execute()
    expect(mails).toHaveLength(1)
    expect(mails[0]!.text).toContain('cancelled by the platform')
    expect(mails[0]!.text).not.toContain(reason)
    const audits = await auditRows(t)
    expect(
      audits.filter(
        (a) =>
          a.action.endsWith('.cancel') && (a.details as { transferId?: string }).transferId === transferId,
      ),
    ).toHaveLength(1)
    expect((await auditRows(t, 'withdrawal.cancel')).length - auditBefore).toBeLessThanOrEqual(1)
    // A withdrawal that failed for good was refunded: it is not sent again.
    expectError(await act(`/v1/admin/withdrawals/${withdrawalId}/retry`), 409, 'TRANSFER_NOT_OPEN')
    await expectConsistent(t)
  })
})

describe('an operator note and a customer message', () => {
  it('tells the customer only the message meant for them; the note stays in the audit log', async () => {
    const user = await createUser(t)
    await fundUser(t, 9, user, 'avax', 1n * AVAX)
    const devnet = t.app.services.chain.devnet!
    devnet.setDown(true)
    const { withdrawalId } = await withdraw(user, 0.3, freshAddress())
    await t.drain()
    devnet.setDown(false)
    const note = 'User asked by support ticket 4411 to cancel'
    const customerMessage = 'Cancelled at your request'
    expectError(
      await act(`/v1/admin/withdrawals/${withdrawalId}/cancel`, { reason: note, customerMessage: '' }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await act(`/v1/admin/withdrawals/${withdrawalId}/retry`, { reason: note, customerMessage }),
      400,
      'VALIDATION_ERROR',
    )
    expectOk(await act(`/v1/admin/withdrawals/${withdrawalId}/cancel`, { reason: note, customerMessage }))
    await settleAll(t)

    const w = expectOk(await get(`/v1/admin/withdrawals?user=${user.id}`)).data[0]
    expect(w.lastError).toBe(`cancelled: ${customerMessage}`)
    // The cancellation was no attempt: the withdrawal counts what its transfer tried.
    const transfer = expectOk(await get(`/v1/admin/transfers/${w.transferId}`))
    expect(w.retryCount).toBe(1)
    expect(transfer.attempts).toBe(w.retryCount)
    const mine = await t.req({ method: 'GET', url: '/v1/withdrawals/', token: user.token })
    expect(mine.body).toContain(customerMessage)
    expect(mine.body).not.toContain('4411')
    const mail = await db()
      .selectFrom('mails')
      .select('text')
      .where('toAddress', '=', user.email)
      .where('kind', '=', 'withdrawal_failed')
      .executeTakeFirstOrThrow()
    expect(mail.text).toContain(customerMessage)
    expect(mail.text).not.toContain('4411')
    const notes = await db()
      .selectFrom('notifications')
      .select(['title', 'description'])
      .where('userId', '=', user.id)
      .execute()
    expect(JSON.stringify(notes)).not.toContain('4411')
    const audit = (await auditRows(t, 'withdrawal.cancel')).find((a) => a.targetId === withdrawalId)!
    expect(audit.reason).toBe(note)
    expect(audit.details).toMatchObject({ customerMessage })
    await expectConsistent(t)
  })
})

describe('a stuck transaction', () => {
  it('is replaced now at its nonce with higher fees, lands, and cannot be cancelled meanwhile', async () => {
    const user = await warmUser(5)
    const c = t.app.services.chain
    const address = (await walletAddress(t, user)).toLowerCase()
    const nonceBefore = await c.getNonce(address, 'latest')
    await c.devnet!.setAutomine(false)
    const estimateFees = c.estimateFees
    // Signed with fees no block will take.
    c.estimateFees = async () => ({ type: 'eip1559', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
    const to = freshAddress()
    const { withdrawalId, transferId } = await withdraw(user, 0.3, to)
    try {
      for (let i = 0; i < 10 && (await transferRow(transferId)).status !== 'sent'; i++) {
        await t.drain()
        t.clock.advance(1_000)
      }
    } finally {
      c.estimateFees = estimateFees
    }
    const before = await transferRow(transferId)
    expect(before.status).toBe('sent')
    await c.devnet!.mine(2)
    expect(await c.getNonce(address, 'latest')).toBe(nonceBefore)

    const listed = expectOk(await get('/v1/admin/transfers?status=sent&purpose=withdrawal&coin=AVAX'))
    expect(listed.data.find((x: { _id: string }) => x._id === transferId)).toMatchObject({
      actions: { retry: true, replace: true, cancel: false },
      replacements: 0,
    })
    // It may still be mined: no cancel.
    expectError(await act(`/v1/admin/withdrawals/${withdrawalId}/cancel`), 409, 'TRANSFER_ALREADY_SIGNED')

    const res = expectOk(await act(`/v1/admin/transfers/${transferId}/replace`))
    expect(res.txHash).not.toBe(before.txHash)
    expect(res.transfer).toMatchObject({ replacements: 1, txHash: res.txHash, nonce: Number(before.nonce) })
    expect(res.transfer.transactions.map((x: { status: string }) => x.status)).toEqual(['pending', 'pending'])
    // The next run broadcasts the replacement; a block mines it.
    await t.drain()
    await c.devnet!.mine(1)
    await c.devnet!.setAutomine(true)
    await settleAll(t)
    const after = expectOk(await get(`/v1/admin/transfers/${transferId}`))
    expect(after).toMatchObject({ status: 'completed', txHash: res.txHash, failures: 0 })
    expect(after.transactions.map((x: { status: string }) => x.status)).toEqual(['replaced', 'mined'])
    expect(await c.balanceOf(to, 'avax')).toBe((AVAX * 3n) / 10n)
    const [audit] = await auditRows(t, 'transfer.replace')
    expect(audit).toMatchObject({ targetType: 'transfer', targetId: transferId, reason })
    expect(audit!.details).toMatchObject({ replacedTxHash: before.txHash })
    expectError(await act(`/v1/admin/transfers/${transferId}/replace`), 409, 'TRANSFER_NOT_OPEN')
    await expectConsistent(t)
  })

  it('refuses to replace a transfer that was never signed', async () => {
    const user = await createUser(t)
    await fundUser(t, 6, user, 'avax', 1n * AVAX)
    t.app.services.chain.devnet!.setDown(true)
    const { transferId } = await withdraw(user, 0.1, freshAddress())
    await t.drain()
    expectError(await act(`/v1/admin/transfers/${transferId}/replace`), 409, 'TRANSFER_NOT_OPEN')
    t.app.services.chain.devnet!.setDown(false)
    await settleAll(t)
  })
})

describe('the transfers list', () => {
  it('shows the newest first by default (new activity on the first page), the oldest first on request', async () => {
    const user = await warmUser(7)
    await withdraw(user, 0.02, freshAddress())
    await settleAll(t)
    const times = (page: { data: Array<{ createdAt: string }> }) =>
      page.data.map((r) => Date.parse(r.createdAt))
    const newest = times(expectOk(await get('/v1/admin/transfers?limit=50')))
    const oldest = times(expectOk(await get('/v1/admin/transfers?limit=50&order=oldest')))
    expect(newest.length).toBeGreaterThanOrEqual(2)
    expect(newest).toEqual([...newest].sort((a, b) => b - a))
    expect(oldest).toEqual([...oldest].sort((a, b) => a - b))
    expect(newest[0]).toBeGreaterThan(oldest[0]!)
    expectError(await get('/v1/admin/transfers?order=random'), 400, 'VALIDATION_ERROR')
  })
})

describe('run now on a halted coin', () => {
  it('answers 503 COIN_HALTED instead of queueing a run that would only wait, and runs once resumed', async () => {
    const user = await warmUser(8)
    const devnet = t.app.services.chain.devnet!
    devnet.setDown(true)
    const { transferId } = await withdraw(user, 0.05, freshAddress())
    await t.drain()
    devnet.setDown(false)
    const halt = (verb: 'halt' | 'resume') => act(`/v1/admin/coins/avax/${verb}`)
    expectOk(await halt('halt'))
    try {
      const refused = await act(`/v1/admin/transfers/${transferId}/retry`)
      expectError(refused, 503, 'COIN_HALTED')
      expect(refused.json().message).toMatch(/halted: resume it/)
      const audited = await auditRows(t, 'transfer.retry')
      expect(audited.filter((r) => r.targetId === transferId)).toHaveLength(0)
    } finally {
      expectOk(await halt('resume'))
    }
    expectOk(await act(`/v1/admin/transfers/${transferId}/retry`))
    await settleAll(t)
    expect((await transferRow(transferId)).status).toBe('completed')
  })
})
