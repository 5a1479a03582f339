// An escrow is opened in one statement: its row, its custodial key and its ledger account. The key
// stored is the one whose address the escrow pays to, and when the escrow's row cannot be written
// neither the key nor the account is left behind.
import { privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newId } from '../../src/platform/crypto/ids.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { initiate } from './helpers.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

async function keysAndAccounts(escrowId: string) {
  const db = t.database.db
  const keys = await db
    .selectFrom('walletKeys')
    .select('address')
    .where('ownerKind', '=', 'escrow')
    .where('ownerId', '=', escrowId)
    .execute()
  const accounts = await db
    .selectFrom('ledgerAccounts')
    .select(['coin', 'balance', 'held'])
    .where('kind', '=', 'escrow')
    .where('ownerId', '=', escrowId)
    .execute()
  return { keys, accounts }
}

describe('opening an escrow', () => {
  it('stores the key of its payment address and an empty account in its coin', async () => {
    const q = await initiate(t, payer, receiver, { amount: 40 })
    const { keys, accounts } = await keysAndAccounts(q.escrowId)
    expect(keys).toEqual([{ address: q.address.toLowerCase() }])
    expect(accounts).toEqual([{ coin: 'avax', balance: '0', held: '0' }])
    const key = await t.app.services.keys.privateKey(t.database.db, q.address)
    expect(privateKeyToAddress(key)).toBe(q.address)
  })

  it('leaves no key and no account when the escrow row is refused', async () => {
    const q = await initiate(t, payer, receiver, { amount: 40 })
    const escrow = t.app.services.escrow
    const coin = await escrow.coin('avax')
    const { rate, quote } = await escrow.quote(4000n, coin)
    const id = newId()
    // The payer does not exist: the escrow row breaks its foreign key at the statement's end.
    await expect(
      t.database.db.transaction().execute((tx) =>
        escrow.open(tx, {
          id,
          collectionId: q.collectionId,
          payerId: newId(),
          receiverId: receiver.id,
          coin,
          rate,
          quote,
          now: t.clock.now(),
        }),
      ),
    ).rejects.toThrow(/foreign key/)
    expect(await keysAndAccounts(id)).toEqual({ keys: [], accounts: [] })
    const escrows = await t.database.db.selectFrom('escrows').select('id').where('id', '=', id).execute()
    expect(escrows).toEqual([])
  })
})
