// Escrow flows that need the sender's failure paths: payment from the in-app wallet, a payout leg
// failing while the chain is down (retried by the sender, then by calling #15 again), and a worker
// dying between a broadcast and its record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WRONG_PASSWORD_WINDOW_MS } from '../../src/modules/account/password-guard.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { refuseSends } from '../helpers/refuser.ts'
import {
  AVAX,
  collection,
  expectConsistent,
  expectError,
  initiate,
  post,
  sendFrom,
  settleAll,
  USDC,
  userBalance,
  walletAddress,
} from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[1]!
const chain = () => t.app.services.chain

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

async function paidEscrow(amount = 100) {
  const q = await initiate(t, payer, receiver, { amount })
  await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status).toBe('paid')
  return q
}

async function legs(escrowId: string) {
  return t.database.db
    .selectFrom('escrowLegs')
    .selectAll()
    .where('escrowId', '=', escrowId)
    .orderBy('seq')
    .execute()
}

describe('POST /v1/escrow/pay (in-app wallet)', () => {
  it('pays from the payer’s wallet on chain, then releases', async () => {
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 40 })
    const due = BigInt(q.amountToPayBaseUnits)
    expectError(
      await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password }),
      422,
      'INSUFFICIENT_BALANCE',
    )
    await t.app.services.chain.devnet!.fund(outsider().address, 'usdc', 100n * USDC)
    await sendFrom(t, outsider(), await walletAddress(t, payer), 'usdc', 50n * USDC)
    await t.app.services.settlement.watcher.scanNow()
    const before = await userBalance(t, payer.id, 'usdc')
    expect(before).toBe(50n * USDC)

    expectError(
      await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: 'Wrong!pass1' }),
      401,
      'INVALID_CREDENTIALS',
    )
    expectError(
      await post(t, receiver, '/v1/escrow/pay', { escrowId: q.escrowId, password: receiver.password }),
      403,
      'FORBIDDEN',
    )
    expectError(await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId }), 400, 'VALIDATION_ERROR')

    const r = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(r.statusCode, r.body).toBe(200)
    // held at once
    expect(await userBalance(t, payer.id, 'usdc')).toBe(before - due)
    expectError(
      await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password }),
      409,
      'ESCROW_PAYMENT_IN_PROGRESS',
    )
    await settleAll(t)
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 42 })
    expect(await userBalance(t, payer.id, 'usdc')).toBe(before - due)
    const sent = await t.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('ownerId', '=', payer.id)
      .where('method', '=', 'sent')
      .executeTakeFirstOrThrow()
    expect(sent).toMatchObject({ status: 'completed', type: 'withdrawal', amount: due.toString() })

    const receiverAddress = await walletAddress(t, receiver)
    const onChainBefore = await chain().balanceOf(receiverAddress, 'usdc')
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    await settleAll(t)
    expect(await chain().balanceOf(receiverAddress, 'usdc')).toBe(onChainBefore + 40n * USDC)
    expect(await userBalance(t, receiver.id, 'usdc')).toBe(40n * USDC)
    const ls = await legs(q.escrowId)
    expect(ls.every((l) => l.status === 'completed')).toBe(true)
    expect(ls.filter((l) => l.kind !== 'payout').reduce((s, l) => s + BigInt(l.amount), 0n)).toBe(2n * USDC)
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'released',
    )
    await expectConsistent(t)
  })

  it('answers 429 after five wrong passwords, even to the right one (counted with withdrawals)', async () => {
    const u = await createUser(t)
    const q = await initiate(t, u, receiver, { amount: 10 })
    await sendFrom(t, outsider(), await walletAddress(t, u), 'avax', AVAX)
    await t.app.services.settlement.watcher.scanNow()
    const pay = (password: string) => post(t, u, '/v1/escrow/pay', { escrowId: q.escrowId, password })
    for (let i = 0; i < 5; i++) expectError(await pay(`Wrong!pass${i}`), 401, 'INVALID_CREDENTIALS')
    expectError(await pay(u.password), 429, 'RATE_LIMITED')
    const withdrawal = await post(t, u, '/v1/withdrawals/', {
      amount: 0.01,
      coin: 'avax',
      address: outsider().address,
      password: u.password,
    })
    expectError(withdrawal, 429, 'RATE_LIMITED')
    expect(await userBalance(t, u.id, 'avax')).toBe(AVAX)
    // the window passes
    t.clock.advance(WRONG_PASSWORD_WINDOW_MS + 1000)
    const ok = await pay(u.password)
    expect(ok.statusCode, ok.body).toBe(200)
    await settleAll(t)
    await expectConsistent(t)
  })

  it('asks for the two-factor code when two-factor login is on', async () => {
    const user = await createUser(t)
    const init = await post(t, user, '/v1/account/initiate/2fa', { type: 'email' })
    expect(init.statusCode, init.body).toBe(202)
    const act = await post(t, user, '/v1/account/activate/2fa', { code: await lastCode(t, user.email) })
    expect(act.statusCode, act.body).toBe(200)
    const q = await initiate(t, user, receiver, { amount: 10 })
    await sendFrom(t, outsider(), await walletAddress(t, user), 'avax', AVAX)
    await t.app.services.settlement.watcher.scanNow()
    const pay = (code?: string) =>
      post(t, user, '/v1/escrow/pay', {
        escrowId: q.escrowId,
        password: user.password,
        ...(code ? { code } : {}),
      })
    expectError(await pay(), 400, 'VALIDATION_ERROR')
    expectError(await pay('000000'), 400, 'INVALID_CODE')
    expect((await post(t, user, '/v1/account/2fa/email', {})).statusCode).toBe(200)
    const ok = await pay(await lastCode(t, user.email))
    expect(ok.statusCode, ok.body).toBe(200)
    await settleAll(t)
    const v = await post(t, user, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 0.42 })
    await expectConsistent(t)
  })
})

describe('an in-app payment mined but not yet credited', () => {
  it('stays under way until the watcher credits it, so the escrow is not paid twice', async () => {
    const t2 = await createTestApp({ env: { CONFIRMATIONS: '2' } })
    try {
      const devnet = t2.app.services.chain.devnet!
      const p = await createUser(t2)
      const r = await createUser(t2)
      await sendFrom(t2, devnet.accounts[3]!, await walletAddress(t2, p), 'avax', 10n * AVAX)
      await devnet.mine(1)
      await t2.app.services.settlement.watcher.scanNow()
      expect(await userBalance(t2, p.id, 'avax')).toBe(10n * AVAX)
      const q = await initiate(t2, p, r, { amount: 100 })
      const pay = () => post(t2, p, '/v1/escrow/pay', { escrowId: q.escrowId, password: p.password })
      const first = await pay()
      expect(first.statusCode, first.body).toBe(200)
      const status = async () => {
        const e = await t2.database.db
          .selectFrom('escrows')
          .innerJoin('outgoingTransfers', 'outgoingTransfers.id', 'escrows.payTransferId')
          .select('outgoingTransfers.status')
          .where('escrows.id', '=', q.escrowId)
          .executeTakeFirstOrThrow()
        return e.status
      }
      // Run the sender (mining a block now and then, for its gas top-up to be confirmed) until the
      // payment is mined and settled; its own block is not confirmed yet, so not credited.
      for (let i = 0; i < 30 && (await status()) !== 'completed'; i++) {
        await t2.drain()
        if ((await status()) === 'completed') break
        await devnet.mine(1)
        t2.clock.advance(60_000)
      }
      expect(await status()).toBe('completed')
      const v = await post(t2, p, '/v1/escrow/validate', { escrowId: q.escrowId })
      expect(v.json().data).toMatchObject({ status: 'waiting', paymentAmount: 0 })

      expectError(await pay(), 409, 'ESCROW_PAYMENT_IN_PROGRESS')
      expect(await userBalance(t2, p.id, 'avax')).toBe(10n * AVAX - BigInt(q.amountToPayBaseUnits))

      await devnet.mine(1)
      const paid = await post(t2, p, '/v1/escrow/validate', { escrowId: q.escrowId })
      expect(paid.json().data).toMatchObject({ status: 'paid', paymentAmount: 4.2 })
      expectError(await pay(), 409, 'ESCROW_NOT_AWAITING_PAYMENT')
      await settleAll(t2)
      await devnet.mine(1)
      await expectConsistent(t2)
    } finally {
      await t2.close()
    }
  })
})

describe('failing payout legs', () => {
  it('retries a leg that failed while the chain was down', async () => {
    const q = await paidEscrow()
    const receiverBefore = await userBalance(t, receiver.id, 'avax')
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    chain().devnet!.setDown(true)
    try {
      await t.drain()
    } finally {
      chain().devnet!.setDown(false)
    }
    const during = await collection(t, payer, q.collectionId)
    expect(during.failedPayoutCount).toBeGreaterThanOrEqual(1)
    await settleAll(t)
    const c = await collection(t, payer, q.collectionId)
    expect(c).toMatchObject({ status: 'completed', payoutStatus: 'completed' })
    expect(c.failedPayoutCount).toBeGreaterThanOrEqual(1)
    expect(await userBalance(t, receiver.id, 'avax')).toBe(receiverBefore + 4n * AVAX)
    await expectConsistent(t)
  })

  it('lets the payer retry a leg that ran out of retries by calling #15 again', async () => {
    const q = await paidEscrow()
    const receiverBefore = await userBalance(t, receiver.id, 'avax')
    expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
    const accept = refuseSends(t)
    try {
      for (let i = 0; i < 12; i++) {
        await t.drain()
        t.clock.advance(10 * 60_000)
      }
    } finally {
      accept()
    }
    const failed = await legs(q.escrowId)
    expect(failed.some((l) => l.status === 'failed')).toBe(true)
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data.status).toBe('paid')
    expect(await userBalance(t, receiver.id, 'avax')).toBe(receiverBefore)

    const r = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    expect(r.json().message).toMatch(/retried/)
    await settleAll(t)
    expect((await legs(q.escrowId)).every((l) => l.status === 'completed')).toBe(true)
    expect(await userBalance(t, receiver.id, 'avax')).toBe(receiverBefore + 4n * AVAX)
    expectError(await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId }), 409, 'CONFLICT')
    await expectConsistent(t)
  })

  it('sends a refund that ran out of retries again when the payer cancels again', async () => {
    const q = await initiate(t, payer, receiver, { amount: 100 })
    await sendFrom(t, outsider(), q.address, 'avax', AVAX)
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'waiting', paymentAmount: 1 })
    const before = await userBalance(t, payer.id, 'avax')
    expect((await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId })).statusCode).toBe(200)
    const accept = refuseSends(t)
    try {
      for (let i = 0; i < 12; i++) {
        await t.drain()
        t.clock.advance(10 * 60_000)
      }
    } finally {
      accept()
    }
    expect((await legs(q.escrowId)).map((l) => [l.kind, l.status])).toEqual([['refund', 'failed']])
    expect(await userBalance(t, payer.id, 'avax')).toBe(before)
    expectError(await post(t, receiver, '/v1/escrow/cancel', { escrowId: q.escrowId }), 403, 'FORBIDDEN')

    const again = await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().message).toMatch(/again/)
    await settleAll(t)
    expect((await legs(q.escrowId)).map((l) => [l.kind, l.status])).toEqual([['refund', 'completed']])
    expect(await userBalance(t, payer.id, 'avax')).toBe(before + AVAX)
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)
    expectError(await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId }), 409, 'ESCROW_CANCELLED')
    await expectConsistent(t)
  })

  it.each(['after-sign', 'after-broadcast', 'after-receipt'] as const)(
    'resumes after a worker died %s on a leg, paying each leg once',
    async (point) => {
      const q = await paidEscrow()
      const receiverAddress = await walletAddress(t, receiver)
      const onChainBefore = await chain().balanceOf(receiverAddress, 'avax')
      const ledgerBefore = await userBalance(t, receiver.id, 'avax')
      expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
      let crashes = 0
      t.crash.hook = (at) => {
        if (at === point && crashes === 0) {
          crashes++
          throw new SimulatedCrash(at)
        }
      }
      try {
        await settleAll(t)
      } finally {
        t.crash.hook = undefined
      }
      expect(crashes).toBe(1)
      expect(await chain().balanceOf(receiverAddress, 'avax')).toBe(onChainBefore + 4n * AVAX)
      expect(await userBalance(t, receiver.id, 'avax')).toBe(ledgerBefore + 4n * AVAX)
      expect((await legs(q.escrowId)).map((l) => l.status)).toEqual(['completed', 'completed', 'completed'])
      await expectConsistent(t)
    },
  )
})
