// Shared steps of the direct deposit tests: an app on a fresh database with its dev chain, a
// collection creator and a talent, outside payers (dev chain accounts), fresh refund addresses,
// and the two public calls.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { sendFrom, USDC } from '../helpers/money.ts'

export { settleAll } from '../escrow/helpers.ts'
export { expectError } from '../helpers/errors.ts'
export { AVAX, expectConsistent, USDC } from '../helpers/money.ts'

export interface DepositScene {
  t: TestApp
  creator: TestUser
  talent: TestUser
}

/** A new address nobody holds anything at: a refund sent there is all its balance. */
export const freshAddress = () => privateKeyToAccount(generatePrivateKey()).address.toLowerCase()

let emails = 0
export const payerEmail = () => `payer-${Date.now()}-${++emails}@example.com`

/** Builds the scene before the file's tests (and closes it after); returns its steps. */
export function depositScene(env: Record<string, string> = {}) {
  const s = {} as DepositScene
  /** dev chain account `i` (outside the platform), funded with USDC */
  const outsider = (i = 2) => s.t.app.services.chain.devnet!.accounts[i]!
  beforeAll(async () => {
    s.t = await createTestApp({ env })
    s.creator = await createUser(s.t)
    s.talent = await createUser(s.t)
    for (const i of [2, 3])
      await s.t.app.services.chain.devnet!.fund(outsider(i).address, 'usdc', 10_000n * USDC)
  })
  afterAll(() => s.t?.close())

  /** The public order call (no token). */
  const order = (body: Record<string, unknown>) =>
    s.t.req({ method: 'POST', url: '/v1/payment-public/direct-deposit', payload: body })

  /** The public validate call, after the scan a worker would run (no worker runs jobs in tests). */
  const validate = async (body: Record<string, unknown>) => {
    await s.t.app.services.settlement.watcher.scanNow()
    return s.t.req({ method: 'POST', url: '/v1/payment-public/validate', payload: body })
  }

  /** A public job of the creator priced `paymentFee` USD, with the talent assigned. */
  async function newCollection(body: Record<string, unknown> = {}, assign = true) {
    const res = await s.t.req({
      method: 'POST',
      url: '/v1/collection',
      token: s.creator.token,
      payload: { type: 'job', name: 'Logo design', description: 'A logo', paymentFee: '100', ...body },
    })
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json().data._id as string
    if (assign)
      await s.t.database.db
        .updateTable('collections')
        .set({ receiverId: s.talent.id })
        .where('id', '=', id)
        .execute()
    return id
  }

  /** Sends `amount` base units of `coin` from an outside account to `to` (the chain's receipt awaited). */
  const pay = (to: string, amount: bigint, coin = 'usdc', from = 2) =>
    sendFrom(s.t, outsider(from), to, coin, amount)

  const legsOf = (escrowId: string) =>
    s.t.database.db
      .selectFrom('escrowLegs')
      .selectAll()
      .where('escrowId', '=', escrowId)
      .orderBy('seq')
      .execute()

  const escrowOf = (orderId: string) =>
    s.t.database.db
      .selectFrom('directDeposits')
      .innerJoin('escrows', 'escrows.id', 'directDeposits.escrowId')
      .select([
        'escrows.id',
        'escrows.status',
        'escrows.payerId',
        'escrows.received',
        'directDeposits.operatorRefund',
      ])
      .where('directDeposits.id', '=', orderId)
      .executeTakeFirstOrThrow()

  const onChain = (address: string, coin = 'usdc') => s.t.app.services.chain.balanceOf(address, coin)

  return { scene: s, outsider, order, validate, newCollection, pay, legsOf, escrowOf, onChain }
}
