// A gas top-up covers what the address's queued transfers need: a fresh custodial address (no gas
// parked) with thirty withdrawals queued at once (native and token) gets exactly one top-up from
// the gas wallet, and all thirty land on it. Each transfer's gas hold is posted for the gas its
// transaction used, none is left pending, and the ledger agrees with the chain. After a failed
// top-up, the next one brings only what the waiting transfer needs.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  USDC,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const NATIVE = 24
const TOKEN = 6
/** the fee of a native withdrawal (the dev chain's default) */
const FEE = AVAX / 1000n

it('sends one top-up for thirty transfers queued at a fresh address, and all of them land', async () => {
  const db = t.database.db
  const user = await createUser(t)
  await fundUser(t, 4, user, 'avax', 10n * AVAX)
  await fundUser(t, 4, user, 'usdc', 10n * USDC)
  const address = (await walletAddress(t, user)).toLowerCase()

  // Every withdrawal is queued before the sender runs any of them.
  const ids: string[] = []
  for (let i = 0; i < NATIVE; i++) ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)
  for (let i = 0; i < TOKEN; i++) {
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.5, coin: 'usdc', address: freshAddress(), password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    const w = await db
      .selectFrom('withdrawals')
      .select('outgoingId')
      .where('id', '=', res.json().data.withdrawalId)
      .executeTakeFirstOrThrow()
    ids.push(w.outgoingId!)
  }

  await settleAll(t)

  const topUps = await db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'amount'])
    .where('purpose', '=', 'gas.topup')
    .where('toAddress', '=', address)
    .execute()
  expect(topUps).toHaveLength(1)
  expect(topUps[0]!.status).toBe('completed')

  const sent = await db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'gasHoldId', 'receipt', 'nonce'])
    .where('id', 'in', ids)
    .execute()
  expect(sent.map((r) => r.status)).toEqual(ids.map(() => 'completed'))
  // One nonce each, none skipped.
  expect(sent.map((r) => Number(r.nonce)).sort((a, b) => a - b)).toEqual(ids.map((_, i) => i))

  // Each transfer's gas hold is posted for exactly the gas its mined transaction cost.
  const holds = await db
    .selectFrom('ledgerHolds')
    .select(['id', 'status', 'postedAmount', 'amount'])
    .where(
      'id',
      'in',
      sent.map((r) => r.gasHoldId!),
    )
    .execute()
  expect(holds).toHaveLength(ids.length)
  const byId = new Map(holds.map((h) => [h.id, h]))
  let gasSpent = 0n
  for (const r of sent) {
    const receipt =
      typeof r.receipt === 'string' ? JSON.parse(r.receipt) : (r.receipt as Record<string, string>)
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
    const hold = byId.get(r.gasHoldId!)!
    expect(hold.status).toBe('posted')
    expect(BigInt(hold.postedAmount)).toBe(fee)
    gasSpent += fee
  }
  // Nothing of the address's parked gas is still held; what is there is the top-up less the gas
  // spent, and the native withdrawals' fees (posted to the address's treasury account).
  const treasury = await db
    .selectFrom('ledgerAccounts')
    .select(['id', 'balance', 'held'])
    .where('kind', '=', 'treasury')
    .where('ownerId', '=', address)
    .where('coin', '=', 'avax')
    .executeTakeFirstOrThrow()
  expect(BigInt(treasury.held)).toBe(0n)
  expect(BigInt(treasury.balance)).toBe(BigInt(topUps[0]!.amount) - gasSpent + BigInt(NATIVE) * FEE)
  const pending = await db
    .selectFrom('ledgerHolds')
    .select('id')
    .where('accountId', '=', treasury.id)
    .where('status', '=', 'pending')
    .execute()
  expect(pending).toEqual([])

  await expectConsistent(t)
})

it('asks, after a failed top-up, only what the waiting transfer needs', async () => {
  const db = t.database.db
  const user = await createUser(t)
  await fundUser(t, 5, user, 'avax', 10n * AVAX)
  const address = (await walletAddress(t, user)).toLowerCase()
  const ids: string[] = []
  for (let i = 0; i < 10; i++) ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)
  const topUps = () =>
    db
      .selectFrom('outgoingTransfers')
      .select(['id', 'status', 'amount'])
      .where('purpose', '=', 'gas.topup')
      .where('toAddress', '=', address)
      .orderBy('createdAt')
      .execute()

  // The first run of the first transfer asks for the whole queue's gas.
  await t.app.services.outgoing.run(ids[0]!)
  const [first] = await topUps()
  expect(first).toBeDefined()
  // That top-up failed for good (as when the gas wallet cannot pay for it).
  await db.updateTable('outgoingTransfers').set({ status: 'failed' }).where('id', '=', first!.id).execute()
  // The next run (a failed attempt of the transfer) asks for a top-up of its own gas only.
  await t.app.services.outgoing.run(ids[0]!)
  const after = await topUps()
  expect(after).toHaveLength(2)
  const second = BigInt(after[1]!.amount)
  expect(second).toBeLessThan(BigInt(first!.amount))
  // The queue's top-up: ten transfers' gas and nineteen more of headroom; the lone one: twenty
  // times this transfer's gas (nothing of it reserved, nothing parked at the address).
  expect(BigInt(first!.amount) % 29n).toBe(0n)
  expect(second).toBe((BigInt(first!.amount) / 29n) * 20n)
  const row = await db
    .selectFrom('outgoingTransfers')
    .select(['status'])
    .where('id', '=', ids[0]!)
    .executeTakeFirstOrThrow()
  expect(row.status).toBe('queued')
})
