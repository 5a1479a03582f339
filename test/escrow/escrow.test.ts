// Escrow end to end on the dev chain: quote (#13), payment from an outside wallet and validation
// (#14), release in on-chain legs (#15), and every refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  collection,
  expectConsistent,
  expectError,
  initiate,
  post,
  sendFrom,
  settleAll,
  tomorrow,
  userBalance,
  walletAddress,
} from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
let stranger: TestUser
const outsider = () => t.app.services.chain.devnet!.accounts[0]!
const chain = () => t.app.services.chain

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
  stranger = await createUser(t)
})
afterAll(() => t?.close())

describe('POST /v1/escrow/initiate (#13)', () => {
  it('answers the quote and creates the collection and the payment address', async () => {
    const q = await initiate(t, payer, receiver)
    expect(q).toEqual({
      coin: 'avax',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      escrowAmount: 100,
      coinEscrowAmount: 4,
      expectedFee: 0.2,
      amountToPay: 4.2,
      usdFee: 5,
      usdAmount: 105,
      feePercentage: 5,
      rate: 25,
      chainId: '31337',
      contractAddress: '',
      paymentMethods: ['crypto'],
      collectionId: expect.stringMatching(/^[0-9a-f]{24}$/),
      escrowId: expect.stringMatching(/^[0-9a-f]{24}$/),
      expiresAt: expect.any(String),
      decimals: 18,
      coinEscrowAmountBaseUnits: (4n * AVAX).toString(),
      expectedFeeBaseUnits: (AVAX / 5n).toString(),
      amountToPayBaseUnits: ((42n * AVAX) / 10n).toString(),
    })
    expect(new Date(q.expiresAt).getTime() - t.clock.now().getTime()).toBeGreaterThan(29 * 60_000)
    const key = await t.database.db
      .selectFrom('walletKeys')
      .selectAll()
      .where('ownerKind', '=', 'escrow')
      .where('ownerId', '=', q.escrowId)
      .executeTakeFirstOrThrow()
    expect(key.address).toBe(q.address.toLowerCase())
    const c = await collection(t, payer, q.collectionId)
    expect(c).toMatchObject({
      name: 'Build a landing page',
      status: 'pending',
      isFundingRequest: false,
      payoutStatus: 'awaiting',
      feePayoutStatus: 'awaiting',
      platformFeePayoutStatus: 'awaiting',
    })
    expect(c.creator._id).toBe(payer.id)
    // the receiver sees it too
    await collection(t, receiver, q.collectionId)
  })

  it('quotes a token with its contract address', async () => {
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 12.34, isFundingRequest: true })
    expect(q).toMatchObject({
      coin: 'usdc',
      coinEscrowAmount: 12.34,
      expectedFee: 0.617,
      amountToPay: 12.957,
      usdFee: 0.62,
      usdAmount: 12.96,
      contractAddress: chain().coin('usdc').contractAddress,
      decimals: 6,
      amountToPayBaseUnits: '12957000',
    })
  })

  it('refuses bad input', async () => {
    const base = {
      title: 'x',
      description: 'y',
      amount: 10,
      coin: 'avax',
      dueDate: tomorrow(t),
      isPrivate: false,
      isFundingRequest: false,
      receiverId: receiver.id,
    }
    const bad: [Record<string, unknown>, number, string][] = [
      [{ amount: 0.5 }, 400, 'VALIDATION_ERROR'],
      [{ amount: 0 }, 400, 'VALIDATION_ERROR'],
      [{ amount: -3 }, 400, 'VALIDATION_ERROR'],
      [{ amount: 10.001 }, 400, 'VALIDATION_ERROR'],
      [{ amount: '10' }, 400, 'VALIDATION_ERROR'],
      [{ amount: 1_000_000_001 }, 400, 'VALIDATION_ERROR'],
      [{ coin: 'nope' }, 400, 'VALIDATION_ERROR'],
      [{ dueDate: '2000-01-01' }, 400, 'VALIDATION_ERROR'],
      [{ dueDate: '2099-02-30' }, 400, 'VALIDATION_ERROR'],
      [{ dueDate: '01/02/2099' }, 400, 'VALIDATION_ERROR'],
      [{ title: '   ' }, 400, 'VALIDATION_ERROR'],
      [{ isPrivate: 'yes' }, 400, 'VALIDATION_ERROR'],
      [{ receiverId: payer.id }, 400, 'VALIDATION_ERROR'],
      [{ receiverId: 'abc' }, 400, 'VALIDATION_ERROR'],
      [{ receiverId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, 404, 'NOT_FOUND'],
      [{ extra: 1 }, 400, 'VALIDATION_ERROR'],
    ]
    for (const [patch, status, code] of bad)
      expectError(await post(t, payer, '/v1/escrow/initiate', { ...base, ...patch }), status, code)
    const { title: _t, ...noTitle } = base
    expectError(await post(t, payer, '/v1/escrow/initiate', noTitle), 400, 'VALIDATION_ERROR')
    expectError(await post(t, undefined, '/v1/escrow/initiate', base), 401, 'UNAUTHENTICATED')
  })

  it('honours Idempotency-Key', async () => {
    const body = {
      title: 'Same',
      description: 'twice',
      amount: 20,
      coin: 'avax',
      receiverId: receiver.id,
    }
    const a = await post(t, payer, '/v1/escrow/initiate', body, { 'idempotency-key': 'init-1' })
    const b = await post(t, payer, '/v1/escrow/initiate', body, { 'idempotency-key': 'init-1' })
    expect(a.statusCode).toBe(200)
    expect(b.json()).toEqual(a.json())
    const c = await post(
      t,
      payer,
      '/v1/escrow/initiate',
      { ...body, amount: 21 },
      { 'idempotency-key': 'init-1' },
    )
    expectError(c, 409, 'IDEMPOTENCY_KEY_REUSED')
  })
})

describe('payment from an outside wallet, validation (#14) and release (#15)', () => {
  it('goes from waiting to paid to released with exact amounts on chain and in the ledger', async () => {
    const q = await initiate(t, payer, receiver)
    const validate = (user: TestUser | undefined) =>
      post(t, user, '/v1/escrow/validate', { escrowId: q.escrowId })

    let v = await validate(payer)
    expect(v.statusCode, v.body).toBe(200)
    expect(v.json().data).toEqual({
      escrowId: q.escrowId,
      paymentAmount: 0,
      paymentAddress: q.address,
      receiverId: receiver.id,
      status: 'waiting',
    })
    expectError(await validate(stranger), 404, 'NOT_FOUND')
    expectError(await validate(undefined), 401, 'UNAUTHENTICATED')
    const unpaid = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expectError(unpaid, 422, 'BUSINESS_RULE')
    expect(unpaid.json().data.reason).toBe('ESCROW_NOT_FUNDED')

    // pays exactly the number shown
    await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
    v = await validate(receiver)
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 4.2 })
    expect(v.json().message).toMatch(/already been made/)
    const paidCollection = await collection(t, payer, q.collectionId)
    expect(paidCollection).toMatchObject({ status: 'ongoing' })

    expectError(await post(t, receiver, '/v1/escrow/release', { escrowId: q.escrowId }), 403, 'FORBIDDEN')
    expectError(await post(t, stranger, '/v1/escrow/release', { escrowId: q.escrowId }), 404, 'NOT_FOUND')
    expectError(
      await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId }),
      409,
      'ESCROW_ALREADY_PAID',
    )

    const receiverAddress = await walletAddress(t, receiver)
    // The platform fee goes to the platform's fee address, credited to its fee account.
    const feeAddress = t.app.services.fees.feeAddress
    const feeAccount = () => t.app.services.ledger.balance(t.database.db, 'treasury', 'fees', 'avax')
    const [receiverBefore, feesBefore, receiverLedgerBefore, feeLedgerBefore] = await Promise.all([
      chain().balanceOf(receiverAddress, 'avax'),
      chain().balanceOf(feeAddress, 'avax'),
      userBalance(t, receiver.id, 'avax'),
      feeAccount(),
    ])

    const r = await post(
      t,
      payer,
      '/v1/escrow/release',
      { escrowId: q.escrowId },
      { 'idempotency-key': 'rel-1' },
    )
    expect(r.statusCode, r.body).toBe(200)
    expect(r.json()).toMatchObject({ status: 'success', data: {} })
    expect(r.json().message).toMatch(/release/i)
    const replay = await post(
      t,
      payer,
      '/v1/escrow/release',
      { escrowId: q.escrowId },
      { 'idempotency-key': 'rel-1' },
    )
    expect(replay.json()).toEqual(r.json())
    expectError(
      await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId }),
      409,
      'ESCROW_RELEASE_IN_PROGRESS',
    )

    await settleAll(t)

    v = await validate(payer)
    expect(v.json().data.status).toBe('released')
    const twice = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expectError(twice, 409, 'CONFLICT')
    expect(twice.json().data.reason).toBe('ESCROW_ALREADY_RELEASED')

    const legs = await t.database.db
      .selectFrom('escrowLegs')
      .selectAll()
      .where('escrowId', '=', q.escrowId)
      .orderBy('seq')
      .execute()
    expect(legs.map((l) => [l.kind, l.status])).toEqual([
      ['payout', 'completed'],
      ['fee', 'completed'],
      ['platformFee', 'completed'],
    ])
    const fee = BigInt(legs[1]!.amount)
    const platformFee = BigInt(legs[2]!.amount)
    expect(BigInt(legs[0]!.amount)).toBe(4n * AVAX)
    expect(fee + platformFee).toBe(AVAX / 5n)
    expect(fee > 0n).toBe(true)

    expect(await chain().balanceOf(receiverAddress, 'avax')).toBe(receiverBefore + 4n * AVAX)
    expect(await chain().balanceOf(feeAddress, 'avax')).toBe(feesBefore + platformFee)
    expect(await feeAccount()).toBe(feeLedgerBefore + platformFee)
    expect(await userBalance(t, receiver.id, 'avax')).toBe(receiverLedgerBefore + 4n * AVAX)
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)

    const txs = await t.database.db
      .selectFrom('transactions')
      .selectAll()
      .where('method', '=', 'payout')
      .where(
        'id',
        'in',
        legs.map((l) => l.transactionId!),
      )
      .execute()
    expect(txs).toHaveLength(3)
    for (const tx of txs) {
      expect(tx.status).toBe('completed')
      expect(JSON.parse(tx.responseData)).toMatchObject({
        status: 'success',
        transactionHash: expect.any(String),
      })
    }
    const payoutTx = txs.find((x) => x.ownerId === receiver.id)!
    expect(payoutTx.type).toBe('deposit')
    // the receiver sees the payout among their transactions
    const list = await t.req({ method: 'GET', url: '/v1/transaction', token: receiver.token })
    expect(list.json().data.transactions.some((x: { _id: string }) => x._id === payoutTx.id)).toBe(true)

    const c = await collection(t, payer, q.collectionId)
    expect(c).toMatchObject({
      status: 'completed',
      payoutStatus: 'completed',
      feePayoutStatus: 'completed',
      platformFeePayoutStatus: 'completed',
      failedPayoutCount: 0,
    })
    expect([...c.payoutTransactions].sort()).toEqual(txs.map((x) => x.id).sort())

    const mail = await t.database.db
      .selectFrom('mails')
      .select(['subject', 'text'])
      .where('toAddress', '=', receiver.email.toLowerCase())
      .where('kind', '=', 'escrow_released')
      .execute()
    expect(mail).toHaveLength(1)
    await expectConsistent(t)
  })

  it('leaves an underpaid escrow waiting, then returns an overpayment at release', async () => {
    const q = await initiate(t, payer, receiver, { amount: 50 })
    const due = BigInt(q.amountToPayBaseUnits)
    await sendFrom(t, outsider(), q.address, 'avax', due / 2n)
    let v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'waiting', paymentAmount: 1.05 })
    expect(v.json().message).toMatch(/Partial payment/)
    await sendFrom(t, outsider(), q.address, 'avax', due / 2n + AVAX)
    v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 3.1 })

    const payerBefore = await userBalance(t, payer.id, 'avax')
    const r = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    await settleAll(t)
    const refund = await t.database.db
      .selectFrom('escrowLegs')
      .selectAll()
      .where('escrowId', '=', q.escrowId)
      .where('kind', '=', 'refund')
      .executeTakeFirstOrThrow()
    expect(BigInt(refund.amount)).toBe(AVAX)
    expect(refund.status).toBe('completed')
    expect(await userBalance(t, payer.id, 'avax')).toBe(payerBefore + AVAX)
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'released',
    )
    await expectConsistent(t)
  })

  it('cancels an unpaid escrow and returns a partial payment; only the payer may cancel', async () => {
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 10 })
    await t.app.services.chain.devnet!.fund(outsider().address, 'usdc', 5_000_000n)
    await sendFrom(t, outsider(), q.address, 'usdc', 4_000_000n)
    await t.app.services.settlement.watcher.scanNow()
    expectError(await post(t, receiver, '/v1/escrow/cancel', { escrowId: q.escrowId }), 403, 'FORBIDDEN')
    expectError(await post(t, stranger, '/v1/escrow/cancel', { escrowId: q.escrowId }), 404, 'NOT_FOUND')
    const before = await userBalance(t, payer.id, 'usdc')
    const c = await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId })
    expect(c.statusCode, c.body).toBe(200)
    expect(c.json().message).toMatch(/returned/)
    expectError(await post(t, payer, '/v1/escrow/cancel', { escrowId: q.escrowId }), 409, 'ESCROW_CANCELLED')
    expectError(await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId }), 409, 'ESCROW_CANCELLED')
    await settleAll(t)
    expect(await userBalance(t, payer.id, 'usdc')).toBe(before + 4_000_000n)
    // a payment arriving after the cancellation goes back too
    await sendFrom(t, outsider(), q.address, 'usdc', 1_000_000n)
    await settleAll(t)
    expect(await userBalance(t, payer.id, 'usdc')).toBe(before + 5_000_000n)
    expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'usdc')).toBe(0n)
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data.status).toBe('cancelled')
    await expectConsistent(t)
  })

  it('credits a payment made after the quote expired, and releases once under concurrent requests', async () => {
    const q = await initiate(t, payer, receiver, { amount: 30 })
    t.clock.advance(31 * 60_000)
    expect(new Date(q.expiresAt).getTime()).toBeLessThan(t.clock.now().getTime())
    await sendFrom(t, outsider(), q.address, 'avax', BigInt(q.amountToPayBaseUnits))
    const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
    expect(v.json().data).toMatchObject({ status: 'paid', paymentAmount: 1.26 })

    const before = await userBalance(t, receiver.id, 'avax')
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409, 409])
    await settleAll(t)
    expect(await userBalance(t, receiver.id, 'avax')).toBe(before + (12n * AVAX) / 10n)
    const legs = await t.database.db
      .selectFrom('escrowLegs')
      .select('kind')
      .where('escrowId', '=', q.escrowId)
      .execute()
    expect(legs.map((l) => l.kind).sort()).toEqual(['fee', 'payout', 'platformFee'])
    await expectConsistent(t)
  })

  it('validates ids and bodies', async () => {
    expectError(await post(t, payer, '/v1/escrow/validate', { escrowId: 'zz' }), 400, 'VALIDATION_ERROR')
    expectError(await post(t, payer, '/v1/escrow/validate', {}), 400, 'VALIDATION_ERROR')
    expectError(
      await post(t, payer, '/v1/escrow/release', { escrowId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await post(t, payer, '/v1/escrow/cancel', { escrowId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }),
      404,
      'NOT_FOUND',
    )
  })
})
