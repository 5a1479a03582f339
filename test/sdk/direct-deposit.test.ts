// `sdk.directDeposit.createDirectDeposit` and `validateDirectDeposit` against the real service over
// a socket, without a token: a public payment order for a collection, paid on the dev chain from an
// outside wallet, checked until paid; the answers in the SDK's declared shapes.
import type { ICreateDirectDepositPayload, IValidateDirectDepositPayload } from '@pakt/sdk'
import { Type } from 'typebox'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendFrom, USDC } from '../helpers/money.ts'
import {
  expectError,
  expectOk,
  expectShape,
  type SdkContext,
  type SdkUser,
  signUp,
  startSdk,
  UNKNOWN_ID,
} from './helpers.ts'
import { Address, Bool, Id, Iso, Num, Str, StrArray } from './shape-kit.ts'

/** ICreateDirectDepositResponse, plus the order's id, end and exact amount. */
const CreateDirectDepositResponse = Type.Object({
  coin: Str,
  address: Address,
  collectionAmount: Num,
  collectionAmountCoin: Num,
  expectedFee: Num,
  amountToPay: Num,
  usdFee: Num,
  usdAmount: Num,
  feePercentage: Num,
  rate: Num,
  chainId: Str,
  contractAddress: Str,
  paymentMethods: StrArray,
  collectionId: Id,
  orderId: Id,
  expiresAt: Iso,
})

/** IValidateDirectDepositResponse: the collection's ICollectionDto fields, isFundingRequest, creator. */
const ValidateDirectDepositResponse = Type.Object({
  _id: Id,
  creator: Id,
  name: Str,
  description: Str,
  type: Str,
  status: Str,
  isFundingRequest: Bool,
  escrowPaid: Bool,
  paymentStatus: Str,
  paymentCoin: Str,
  paymentAddress: Address,
  expectedAmount: Str,
})

let ctx: SdkContext
let creator: SdkUser
const outsider = () => ctx.t.app.services.chain.devnet!.accounts[2]!

beforeAll(async () => {
  ctx = await startSdk()
  creator = await signUp(ctx, { firstName: 'Creator' })
  await ctx.t.app.services.chain.devnet!.fund(outsider().address, 'usdc', 1_000n * USDC)
})
afterAll(() => ctx?.t.close())

async function newCollection(paymentFee = '100') {
  const res = await ctx.t.req({
    method: 'POST',
    url: '/v1/collection',
    token: creator.token,
    payload: { type: 'job', name: 'Landing page', description: 'One page', paymentFee },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data._id as string
}

/** The SDK's payload, with the collection to pay (the service's addition) and the payer as `owner`. */
const payload = (collection: string, owner: string, amount = 100) =>
  ({
    collectionType: 'payments',
    amount,
    coin: 'usdc',
    name: 'Landing page',
    description: 'Paid by a client without an account',
    owner,
    collection,
  }) as ICreateDirectDepositPayload

async function validate(p: IValidateDirectDepositPayload) {
  // the scan a worker would run (no worker runs jobs in tests)
  await ctx.t.app.services.settlement.watcher.scanNow()
  return ctx.sdk.directDeposit.validateDirectDeposit({ authToken: '', payload: p })
}

describe('directDeposit.createDirectDeposit and validateDirectDeposit', () => {
  it('pay a collection without an account, on chain, until it is funded', async () => {
    const id = await newCollection()
    const refundTo = privateKeyToAccount(generatePrivateKey()).address
    const q = expectOk(
      await ctx.sdk.directDeposit.createDirectDeposit({ authToken: '', payload: payload(id, refundTo) }),
    )
    expectShape(CreateDirectDepositResponse, q, 'the order')
    expect(q).toMatchObject({
      coin: 'usdc',
      collectionAmount: 100,
      amountToPay: 105,
      paymentMethods: ['crypto'],
      collectionId: id,
    })

    const pending = expectOk(await validate({ collection: id, method: 'crypto' }))
    expectShape(ValidateDirectDepositResponse, pending, 'the order’s state')
    expect(pending).toMatchObject({
      _id: id,
      creator: creator.id,
      paymentStatus: 'pending',
      escrowPaid: false,
    })

    await sendFrom(ctx.t, outsider(), q.address, 'usdc', 105n * USDC)
    const paid = expectOk(await validate({ collection: id, status: 'pending', owner: refundTo }))
    expectShape(ValidateDirectDepositResponse, paid, 'the order’s state')
    expect(paid).toMatchObject({ paymentStatus: 'paid', escrowPaid: true, paymentAddress: q.address })
  })

  it('answers the error envelope for what cannot be paid', async () => {
    const owner = 'client@example.com'
    expectError(
      await ctx.sdk.directDeposit.createDirectDeposit({ authToken: '', payload: payload(UNKNOWN_ID, owner) }),
      404,
      'NOT_FOUND',
    )
    const id = await newCollection('80')
    expectError(
      await ctx.sdk.directDeposit.createDirectDeposit({ authToken: '', payload: payload(id, owner, 100) }),
      422,
      'PAYMENT_AMOUNT_MISMATCH',
    )
    expectError(await validate({ collection: id }), 404, 'NOT_FOUND')
    expectError(await validate({ collection: id, method: 'stripe' }), 400, 'VALIDATION_ERROR')
  })
})
