// The platform's fees for operators on a real database and the dev chain: escrow releases pay their
// platform fee to the fee address, GET /v1/admin/fees shows it per coin, and a sweep moves it to the
// cold address through the outgoing sender (a hold on the fee account, posted when mined, voided
// when the transfer fails for good, exactly once), audited, idempotent, one per coin at a time;
// the ledger balances and reconciliation passes after each; every refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectConsistent, initiate, post, sendFrom, settleAll, USDC } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import { freshAddress, settleAll as settleWhileRefused } from '../withdrawals/helpers.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
let admin: TestUser
const run = runId()
const reason = 'Monthly sweep to the cold wallet'
const cold = freshAddress().toLowerCase()
const coldUsdc = freshAddress().toLowerCase()

beforeAll(async () => {
  t = await createTestApp({
    env: { ...adminEnv(run), FEE_SWEEP_ADDRESS: cold, FEE_SWEEP_ADDRESS_USDC: coldUsdc },
  })
  admin = await createAdmin(t, run)
})
afterAll(async () => {
  t?.app.services.chain.devnet?.setDown(false)
  t?.app.services.chain.devnet?.refuse('eth_feeHistory', null)
  await t?.close()
})

const db = () => t.database.db
const chain = () => t.app.services.chain
const feeBalance = (coin: string) =>
  t.app.services.ledger.accountsOf(db(), 'treasury', 'fees').then((a) => a[coin])
const get = (token = admin.token) => t.req({ method: 'GET', url: '/v1/admin/fees', token })
const sweep = (body: Record<string, unknown>, headers: Record<string, string> = {}, token = admin.token) =>
  t.req({ method: 'POST', url: '/v1/admin/fees/sweep', token, payload: { reason, ...body }, headers })
const feesOf = async (coin: string) => {
  const data = expectOk(await get())
  return data.coins.find((c: { coin: string }) => c.coin === coin)
}
const sweepRow = (id: string) =>
  db().selectFrom('feeSweeps').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const holdOf = async (id: string) => {
  const { holdId } = await sweepRow(id)
  return db().selectFrom('ledgerHolds').selectAll().where('id', '=', holdId).executeTakeFirstOrThrow()
}

/** Reconciliation on demand, through the admin API: it must find nothing wrong. */
async function expectReconciled() {
  await expectConsistent(t)
  const r = expectOk(
    await t.req({
      method: 'POST',
      url: '/v1/admin/reconciliation/run',
      token: admin.token,
      payload: { reason: 'Check after a fee sweep' },
    }),
  )
  expect(r, JSON.stringify(r)).toMatchObject({ status: 'ok', violations: [], halted: [] })
}

/** An escrow in `coin` paid from outside and released: its platform fee goes to the fee address. */
async function escrowFee(coin: 'avax' | 'usdc', payerIndex: number): Promise<bigint> {
  const payer = await createUser(t)
  const receiver = await createUser(t)
  const q = await initiate(t, payer, receiver, { coin })
  const outsider = chain().devnet!.accounts[payerIndex]!
  const due = BigInt(q.amountToPayBaseUnits)
  if (coin === 'usdc') await chain().devnet!.fund(outsider.address, 'usdc', due)
  await sendFrom(t, outsider, q.address, coin, due)
  expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
    'paid',
  )
  const released = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
  expect(released.statusCode, released.body).toBe(200)
  await settleAll(t)
  const leg = await db()
    .selectFrom('escrowLegs')
    .selectAll()
    .where('escrowId', '=', q.escrowId)
    .where('kind', '=', 'platformFee')
    .executeTakeFirstOrThrow()
  expect(leg.status).toBe('completed')
  expect(leg.toAddress).toBe(t.app.services.fees.feeAddress)
  return BigInt(leg.amount)
}

describe('who may see and sweep the fees', () => {
  it('answers 401 without a token, 403 to a normal user and to an admin without a fresh second factor', async () => {
    const user = await createUser(t)
    const plain = await createAdmin(t, run, 1, false)
    for (const [method, url] of [
      ['GET', '/v1/admin/fees'],
      ['POST', '/v1/admin/fees/sweep'],
    ] as const) {
      const payload = method === 'POST' ? { coin: 'avax', reason } : undefined
      expectError(await t.req({ method, url, payload }), 401, 'UNAUTHENTICATED')
      expectError(await t.req({ method, url, payload, token: user.token }), 403, 'FORBIDDEN')
      const stale = await t.req({ method, url, payload, token: plain.token })
      expectError(stale, 403, 'FORBIDDEN')
      expect(stale.json().message).toMatch(/second factor/)
    }
    expect(await auditRows(t, 'fee.sweep')).toEqual([])
  })
})

describe('a sweep of the native coin', () => {
  it('moves the escrow fees to the cold address once, audited and idempotent', async () => {
    const fee = await escrowFee('avax', 2)
    expect(fee > 0n).toBe(true)
    const feeAddress = t.app.services.fees.feeAddress
    const data = expectOk(await get())
    expect(data.feeAddress).toBe(feeAddress)
    const before = data.coins.find((c: { coin: string }) => c.coin === 'avax')
    expect(before).toMatchObject({
      symbol: 'AVAX',
      decimals: 18,
      balance: fee.toString(),
      reserved: '0',
      sweepable: fee.toString(),
      collected: fee.toString(),
      swept: '0',
      coldAddress: cold,
      coldAddressSource: 'FEE_SWEEP_ADDRESS',
      inFlight: null,
      sweeps: [],
    })
    expect(data.coins.find((c: { coin: string }) => c.coin === 'usdc')).toMatchObject({
      coldAddress: coldUsdc,
      coldAddressSource: 'FEE_SWEEP_ADDRESS_USDC',
    })
    expect(await chain().balanceOf(feeAddress, 'avax')).toBe(fee)

    // All that is sweepable (no amount), under an Idempotency-Key.
    const key = { 'idempotency-key': `sweep-avax-${run}` }
    const first = await sweep({ coin: 'AVAX' }, key)
    const s = expectOk(first)
    expect(first.json().message).toBe('Sweep queued')
    expect(s).toMatchObject({
      coin: 'avax',
      amount: fee.toString(),
      from: feeAddress,
      to: cold,
      status: 'pending',
      txHash: null,
      failures: 0,
      reason,
      requestedBy: admin.id,
      transferId: expect.stringMatching(/^[0-9a-f]{24}$/),
    })
    const replay = await sweep({ coin: 'AVAX' }, key)
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.json()).toEqual(first.json())
    expectError(await sweep({ coin: 'AVAX', amount: '1' }, key), 409, 'IDEMPOTENCY_KEY_REUSED')

    // In flight: reserved by the hold, nothing more sweepable, a second sweep refused.
    const during = await feesOf('avax')
    expect(during).toMatchObject({ balance: fee.toString(), reserved: fee.toString(), sweepable: '0' })
    expect(during.inFlight).toMatchObject({ _id: s._id, status: 'pending' })
    const busy = await sweep({ coin: 'avax' })
    expectError(busy, 409, 'SWEEP_IN_FLIGHT')
    expect(busy.json().data).toMatchObject({ cause: 'SWEEP_IN_FLIGHT', sweepId: s._id })

    const audits = await auditRows(t, 'fee.sweep')
    expect(audits).toHaveLength(1)
    expect(audits[0]).toMatchObject({ actorId: admin.id, targetType: 'fee_sweep', targetId: s._id, reason })
    expect(audits[0]!.details).toMatchObject({
      coin: 'avax',
      amount: fee.toString(),
      sweepableBefore: fee.toString(),
      from: feeAddress,
      to: cold,
      transferId: s.transferId,
    })

    await settleAll(t)
    // It landed at the cold address; the fee balance dropped by exactly the amount.
    expect(await chain().balanceOf(cold, 'avax')).toBe(fee)
    expect(await feeBalance('avax')).toMatchObject({ balance: 0n, held: 0n })
    const after = await feesOf('avax')
    expect(after).toMatchObject({
      balance: '0',
      reserved: '0',
      sweepable: '0',
      collected: fee.toString(),
      swept: fee.toString(),
      inFlight: null,
    })
    expect(after.sweeps).toHaveLength(1)
    expect(after.sweeps[0]).toMatchObject({
      _id: s._id,
      status: 'confirmed',
      transferStatus: 'completed',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
    expect(await holdOf(s._id)).toMatchObject({ status: 'posted', postedAmount: fee.toString() })
    // The transfer is settlement's like any other (purpose fee.sweep), its gas paid at the fee address.
    const transfer = expectOk(
      await t.req({ method: 'GET', url: `/v1/admin/transfers/${s.transferId}`, token: admin.token }),
    )
    expect(transfer).toMatchObject({
      purpose: 'fee.sweep',
      referenceId: s._id,
      status: 'completed',
      to: cold,
    })
    await expectReconciled()

    // Nothing left: refused, nothing written.
    const empty = await sweep({ coin: 'avax' })
    expectError(empty, 422, 'INSUFFICIENT_BALANCE')
    expect(empty.json().data).toMatchObject({ cause: 'NOTHING_TO_SWEEP' })
    expect(await auditRows(t, 'fee.sweep')).toHaveLength(1)
  })
})

describe('a sweep of the token', () => {
  it('moves part of the fees to the coin’s own cold address, its gas paid by the platform', async () => {
    const fee = await escrowFee('usdc', 3)
    expect(fee > USDC).toBe(true)
    expect((await feesOf('usdc')).sweepable).toBe(fee.toString())
    const over = await sweep({ coin: 'usdc', amount: (fee + 1n).toString() })
    expectError(over, 422, 'INSUFFICIENT_BALANCE')
    expect(over.json().data).toMatchObject({ cause: 'OVER_SWEEPABLE', sweepable: fee.toString() })

    const part = fee / 2n
    const s = expectOk(await sweep({ coin: 'usdc', amount: part.toString() }))
    expect(s).toMatchObject({ amount: part.toString(), to: coldUsdc, status: 'pending' })
    await settleAll(t)
    expect(await chain().balanceOf(coldUsdc, 'usdc')).toBe(part)
    expect(await chain().balanceOf(cold, 'usdc')).toBe(0n)
    expect(await feeBalance('usdc')).toMatchObject({ balance: fee - part, held: 0n })
    expect(await feesOf('usdc')).toMatchObject({
      balance: (fee - part).toString(),
      sweepable: (fee - part).toString(),
      swept: part.toString(),
    })
    expect((await sweepRow(s._id)).status).toBe('confirmed')
    // The token's gas came from platform value at the fee address (a gas wallet top-up), not
    // from the fees.
    const topUps = await db()
      .selectFrom('outgoingTransfers')
      .select(['status'])
      .where('purpose', '=', 'gas.topup')
      .where('toAddress', '=', t.app.services.fees.feeAddress)
      .execute()
    expect(topUps.length).toBeGreaterThanOrEqual(1)
    expect(topUps.every((x) => x.status === 'completed')).toBe(true)
    await expectReconciled()
  })
})

describe('a sweep whose transfer fails', () => {
  it('fails for good after its retries and is refunded exactly once', async () => {
    const before = (await feeBalance('usdc'))!
    expect(before.available > 0n).toBe(true)
    const accept = refuseSends(t)
    let id: string
    try {
      const s = expectOk(await sweep({ coin: 'usdc' }))
      id = s._id
      await settleWhileRefused(t)
    } finally {
      accept()
    }
    const row = await sweepRow(id)
    expect(row).toMatchObject({ status: 'failed', txHash: null })
    expect(row.failures).toBeGreaterThanOrEqual(5)
    expect(row.lastError).toMatch(/eth_feeHistory/)
    // The hold was voided once: nothing moved out of the fee account, all of it sweepable again.
    expect(await holdOf(id)).toMatchObject({ status: 'voided', postedAmount: '0' })
    expect(await feeBalance('usdc')).toMatchObject({ balance: before.balance, held: 0n })
    const view = await feesOf('usdc')
    expect(view).toMatchObject({ sweepable: before.available.toString(), inFlight: null })
    expect(view.sweeps[0]).toMatchObject({ _id: id, status: 'failed', transferStatus: 'failed' })
    const events = await db()
      .selectFrom('outgoingEvents')
      .select('event')
      .where('transferId', '=', row.outgoingId!)
      .where('event', '=', 'outcome')
      .execute()
    expect(events).toHaveLength(1)
    // Running every job again changes nothing.
    await t.drain()
    expect(await feeBalance('usdc')).toMatchObject({ balance: before.balance, held: 0n })
    await expectReconciled()
  })

  it('cancelled by operators with concurrent requests, is refunded exactly once', async () => {
    const before = (await feeBalance('usdc'))!
    const coldBefore = await chain().balanceOf(coldUsdc, 'usdc')
    const devnet = chain().devnet!
    devnet.setDown(true)
    const s = expectOk(await sweep({ coin: 'usdc', amount: '1000' }))
    await t.drain()
    expect((await sweepRow(s._id)).failures).toBe(1)
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.req({
          method: 'POST',
          url: `/v1/admin/transfers/${s.transferId}/cancel`,
          token: admin.token,
          payload: { reason: 'The chain endpoint is down; sweep later' },
        }),
      ),
    )
    devnet.setDown(false)
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409])
    await settleAll(t)
    expect(await sweepRow(s._id)).toMatchObject({ status: 'failed' })
    expect((await sweepRow(s._id)).lastError).toBe('cancelled by the platform')
    expect(await holdOf(s._id)).toMatchObject({ status: 'voided' })
    expect(await feeBalance('usdc')).toMatchObject({ balance: before.balance, held: 0n })
    expect(await chain().balanceOf(coldUsdc, 'usdc')).toBe(coldBefore)
    await expectReconciled()
  })
})

describe('refusals', () => {
  it('answers 400 for an unknown coin, a zero or malformed amount, a missing reason or an unknown field', async () => {
    const bad = async (body: Record<string, unknown>, path?: string) => {
      const res = await t.req({
        method: 'POST',
        url: '/v1/admin/fees/sweep',
        token: admin.token,
        payload: body,
      })
      expectError(res, 400, 'VALIDATION_ERROR')
      if (path) expect(res.json().data.errors[0].path).toBe(path)
    }
    await bad({ coin: 'doge', reason }, '/coin')
    await bad({ coin: 'usdc', amount: '0', reason }, '/amount')
    await bad({ coin: 'usdc', amount: '-5', reason })
    await bad({ coin: 'usdc', amount: '1.5', reason })
    await bad({ coin: 'usdc', amount: 5, reason })
    await bad({ coin: 'usdc' })
    await bad({ coin: 'usdc', reason, to: freshAddress() })
  })

  it('answers 409 while the coin is halted, and sweeps again once it is resumed', async () => {
    const halt = (verb: 'halt' | 'resume') =>
      t.req({
        method: 'POST',
        url: `/v1/admin/coins/usdc/${verb}`,
        token: admin.token,
        payload: { reason: 'Issuer incident drill' },
      })
    expectOk(await halt('halt'))
    const res = await sweep({ coin: 'usdc' })
    expectError(res, 409, 'HALTED_COIN_REFUSED')
    expect(res.json().data).toMatchObject({ cause: 'COIN_HALTED' })
    expectOk(await halt('resume'))
    const ok = expectOk(await sweep({ coin: 'usdc', amount: '1' }))
    await settleAll(t)
    expect((await sweepRow(ok._id)).status).toBe('confirmed')
    await expectReconciled()
  })
})

describe('sweeps at the same moment', () => {
  it('let one of them go and refuse the others while it is in flight', async () => {
    const before = (await feeBalance('usdc'))!
    expect(before.available > 0n).toBe(true)
    const answers = await Promise.all(Array.from({ length: 3 }, () => sweep({ coin: 'usdc' })))
    expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([
      200, 409, 409,
    ])
    for (const r of answers.filter((x) => x.statusCode === 409))
      expect(r.json().data).toMatchObject({ cause: 'SWEEP_IN_FLIGHT' })
    await settleAll(t)
    expect(await feeBalance('usdc')).toMatchObject({ balance: 0n, held: 0n })
    expect(await chain().balanceOf(coldUsdc, 'usdc')).toBe(BigInt((await feesOf('usdc')).swept))
    await expectReconciled()
  })
})
