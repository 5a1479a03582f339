// Shared steps of the collection payment tests: an app listening for the client SDK, a creator,
// an assigned talent and a stranger, and the /v1/payment calls.
import { afterAll, beforeAll, expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { type SdkContext, startSdk } from '../sdk/helpers.ts'
import { post, sendFrom, USDC } from './helpers.ts'

export interface PaymentScene {
  ctx: SdkContext
  t: TestApp
  creator: TestUser
  talent: TestUser
  stranger: TestUser
}

/** Whole coins as decimal text → base units. */
export function toUnits(text: string, decimals: number): bigint {
  const [whole, frac = ''] = text.split('.')
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0')
}

export const sum = (rows: { amount: string }[]) => rows.reduce((s, r) => s + BigInt(r.amount), 0n)

/** Builds the scene before the file's tests (and closes it after); returns its steps. */
export function paymentScene() {
  const s = {} as PaymentScene
  const outsider = () => s.t.app.services.chain.devnet!.accounts[2]!
  beforeAll(async () => {
    s.ctx = await startSdk()
    s.t = s.ctx.t
    s.creator = await createUser(s.t)
    s.talent = await createUser(s.t)
    s.stranger = await createUser(s.t)
    await s.t.app.services.chain.devnet!.fund(outsider().address, 'usdc', 1_000n * USDC)
  })
  afterAll(() => s.t?.close())

  const fund = (user: TestUser | undefined, body: Record<string, unknown>, headers = {}) =>
    post(s.t, user, '/v1/payment/', body, headers)
  const validate = (user: TestUser | undefined, body: Record<string, unknown>) =>
    post(s.t, user, '/v1/payment/validate', body)
  const release = (user: TestUser | undefined, body: Record<string, unknown>, headers = {}) =>
    post(s.t, user, '/v1/payment/release', body, headers)

  async function newCollection(user: TestUser, body: Record<string, unknown> = {}) {
    const res = await s.t.req({
      method: 'POST',
      url: '/v1/collection',
      token: user.token,
      payload: { type: 'job', name: 'Logo design', description: 'A logo', paymentFee: '100', ...body },
    })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data._id as string
  }

  /** Assigns the collection's talent (the receiver an escrow pays), as hiring someone does. */
  async function assign(collectionId: string, userId: string) {
    await s.t.database.db
      .updateTable('collections')
      .set({ receiverId: userId })
      .where('id', '=', collectionId)
      .execute()
  }

  /** A funded and paid collection of the creator with the talent assigned. */
  async function paidCollection(paymentFee = '100', coin = 'avax') {
    const id = await newCollection(s.creator, { paymentFee })
    await assign(id, s.talent.id)
    const res = await fund(s.creator, { coin, collection: id })
    expect(res.statusCode, res.body).toBe(200)
    const q = res.json().data
    const decimals = s.t.app.services.chain.coin(coin).decimals
    await sendFrom(s.t, outsider(), q.address, coin, toUnits(q.amountToPay, decimals))
    const v = await validate(s.creator, { collection: id })
    expect(v.json().data.status, v.body).toBe('paid')
    return { id, q }
  }

  const legsOf = (escrowId: string) =>
    s.t.database.db
      .selectFrom('escrowLegs')
      .selectAll()
      .where('escrowId', '=', escrowId)
      .orderBy('seq')
      .execute()

  const escrowBalance = (escrowId: string, coin: string) =>
    s.t.app.services.ledger.balance(s.t.database.db, 'escrow', escrowId, coin)

  return {
    scene: s,
    outsider,
    chain: () => s.t.app.services.chain,
    fund,
    validate,
    release,
    newCollection,
    assign,
    paidCollection,
    legsOf,
    escrowBalance,
  }
}
