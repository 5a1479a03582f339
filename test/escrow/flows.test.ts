// Escrow flows that need the sender's failure paths: payment from the in-app wallet, a payout leg
// failing while the chain is down (retried by the sender, then by calling #15 again), and a worker
// dying between a broadcast and its record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/withdrawals/sender.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
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
    await t.app.services.wallets.scanNow()
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
      'CONFLICT',
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

  it('asks for the two-factor code when two-factor login is on', async () => {
    const user = await createUser(t)
    const init = await post(t, user, '/v1/account/initiate/2fa', { type: 'email' })
    expect(init.statusCode, init.body).toBe(202)
    const act = await post(t, user, '/v1/account/activate/2fa', { code: await lastCode(t, user.email) })
    expect(act.statusCode, act.body).toBe(200)
    const q = await initiate(t, user, receiver, { amount: 10 })
    await sendFrom(t, outsider(), await walletAddress(t, user), 'avax', AVAX)
    await t.app.services.wallets.scanNow()
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
    chain().devnet!.setDown(true)
    try {
      for (let i = 0; i < 12; i++) {
        await t.drain()
        t.clock.advance(10 * 60_000)
      }
    } finally {
      chain().devnet!.setDown(false)
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

  it.each(['after-sign', 'after-broadcast', 'after-receipt'] as const)(
    'resumes after a worker died %s on a leg, paying each leg once',
    async (point) => {
      const q = await paidEscrow()
      const receiverAddress = await walletAddress(t, receiver)
      const onChainBefore = await chain().balanceOf(receiverAddress, 'avax')
      const ledgerBefore = await userBalance(t, receiver.id, 'avax')
      expect((await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(200)
      let crashes = 0
      t.app.services.outgoing.testHook = (at) => {
        if (at === point && crashes === 0) {
          crashes++
          throw new SimulatedCrash(at)
        }
      }
      try {
        await settleAll(t)
      } finally {
        t.app.services.outgoing.testHook = undefined
      }
      expect(crashes).toBe(1)
      expect(await chain().balanceOf(receiverAddress, 'avax')).toBe(onChainBefore + 4n * AVAX)
      expect(await userBalance(t, receiver.id, 'avax')).toBe(ledgerBefore + 4n * AVAX)
      expect((await legs(q.escrowId)).map((l) => l.status)).toEqual(['completed', 'completed', 'completed'])
      await expectConsistent(t)
    },
  )
})
