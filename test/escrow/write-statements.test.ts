// The statements of opening an escrow: POST /v1/escrow/initiate takes six, POST /v1/payment/
// six. Initiate: the payer's session, the collection, its event, the escrow's custodial key, its
// ledger account and the escrow row (the collection type is kept by the process once read). Payment: the collection read outside and
// again inside the transaction, its update, the key, the account and the escrow row (its insert
// answers the row the answer is made of). The key and the account are one statement apiece (an
// insert answering the new row).
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
  it('POST /v1/escrow/initiate takes six', async () => {
    // Each path once first, so that the count is of the request alone.
    await counted('/v1/escrow/initiate', initiateBody('Warm-up'))
    const { queries, data } = await counted('/v1/escrow/initiate', initiateBody('Counted'))
    expect(queries).toBe(6)
    await expectOpened(data.address, 'avax')
  })

  it('POST /v1/payment/ takes six', async () => {
    await counted('/v1/payment/', { coin: 'avax', collection: await assignedCollection('Warm-up') })
    const collection = await assignedCollection('Counted')
    const { queries, data } = await counted('/v1/payment/', { coin: 'avax', collection })
    expect(queries).toBe(6)
    await expectOpened(data.address, 'avax')
  })
})
