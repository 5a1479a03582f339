// The statements of opening an escrow: POST /v1/escrow/initiate takes four, POST /v1/payment/
// four. Initiate: the payer's session, the collection, its event, and the escrow row written with
// its custodial key and ledger account (the collection type is kept by the process once read).
// Payment: the collection read outside and again inside the transaction, its update, and the
// escrow row with its key and account. The key and the account are the escrow statement's WITH
// queries: the escrow's id is new, so they are too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { tomorrow } from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

async function counted(url: string, payload: object) {
  const before = t.database.queryCount()
  const res = await t.req({ method: 'POST', url, token: payer.token, payload })
  const queries = t.database.queryCount() - before
  expect(res.statusCode, res.body).toBe(200)
  return { queries, data: res.json().data }
}

/** The escrow at `address` has its own key (the address) and a ledger account in its coin. */
async function expectOpened(address: string, coin: string) {
  const db = t.database.db
  const escrow = await db
    .selectFrom('escrows')
    .select(['id', 'coin'])
    .where('address', '=', address.toLowerCase())
    .executeTakeFirstOrThrow()
  expect(escrow.coin).toBe(coin)
  const keys = await db
    .selectFrom('walletKeys')
    .select('address')
    .where('ownerKind', '=', 'escrow')
    .where('ownerId', '=', escrow.id)
    .execute()
  expect(keys).toEqual([{ address: address.toLowerCase() }])
  const account = await db
    .selectFrom('ledgerAccounts')
    .select('balance')
    .where('kind', '=', 'escrow')
    .where('ownerId', '=', escrow.id)
    .where('coin', '=', coin)
    .executeTakeFirstOrThrow()
  expect(account.balance).toBe('0')
}

const initiateBody = (title: string) => ({
  title,
  description: 'One page, responsive',
  amount: 100,
  coin: 'avax',
  dueDate: tomorrow(t),
  isPrivate: false,
  isFundingRequest: false,
  receiverId: receiver.id,
})

async function assignedCollection(name: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/collection',
    token: payer.token,
    payload: { type: 'job', name, description: 'A logo', paymentFee: '100' },
  })
  expect(res.statusCode, res.body).toBe(200)
  const id = res.json().data._id as string
  await t.database.db
    .updateTable('collections')
    .set({ receiverId: receiver.id })
    .where('id', '=', id)
    .execute()
  return id
}

describe('statements per escrow opened', () => {
  it('POST /v1/escrow/initiate takes four', async () => {
    // Each path once first, so that the count is of the request alone.
    await counted('/v1/escrow/initiate', initiateBody('Warm-up'))
    const { queries, data } = await counted('/v1/escrow/initiate', initiateBody('Counted'))
    expect(queries).toBe(4)
    await expectOpened(data.address, 'avax')
  })

  it('POST /v1/payment/ takes four', async () => {
    await counted('/v1/payment/', { coin: 'avax', collection: await assignedCollection('Warm-up') })
    const collection = await assignedCollection('Counted')
    const { queries, data } = await counted('/v1/payment/', { coin: 'avax', collection })
    expect(queries).toBe(4)
    await expectOpened(data.address, 'avax')
  })
})
