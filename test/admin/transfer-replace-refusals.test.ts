// An operator's "replace now" refused, each with its own code, on a real database and the dev
// chain: a transaction the chain mined already (TRANSFER_NOT_STUCK), replacements used up and
// a replacement above the coin's maximum fee (TRANSFER_REPLACE_LIMIT), and higher fees than the
// gas parked at the sending address (TRANSFER_AWAITS_GAS, a top-up requested). Nothing is
// signed by a refused replacement, and the transfer still lands once the chain takes it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { FeeEstimate } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import {
  AVAX,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
} from '../withdrawals/helpers.ts'
import {
  adminEnv,
  createAdmin,
  elevateSession,
  expectError,
  expectOk,
  runId,
  type TestAdmin,
} from './helpers.ts'

let t: TestApp
let admin: TestAdmin
const run = runId()
const reason = 'Support ticket 5120: the withdrawal is stuck'

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
})
const chain = () => t.app.services.chain
let restoreEstimate: (() => void) | undefined
// The tests move the clock by minutes: each starts with a fresh second factor.
beforeEach(() => elevateSession(t, admin))
afterEach(async () => {
  restoreEstimate?.()
  restoreEstimate = undefined
  await chain().devnet!.setAutomine(true)
})
afterAll(async () => {
  await t?.close()
})

const db = () => t.database.db
const transferRow = (id: string) =>
  db().selectFrom('outgoingTransfers').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const replace = (transferId: string) =>
  t.req({
    method: 'POST',
    url: `/v1/admin/transfers/${transferId}/replace`,
    token: admin.token,
    payload: { reason },
  })
const storedTransactions = async (transferId: string) =>
  expectOk(await t.req({ method: 'GET', url: `/v1/admin/transfers/${transferId}`, token: admin.token }))
    .transactions as { status: string }[]

/** Every fee estimate answers `fees` until the test ends (or `restoreEstimate`). */
function estimateAs(fees: FeeEstimate) {
  const c = chain()
  if (!restoreEstimate) {
    const real = c.estimateFees
    restoreEstimate = () => {
      c.estimateFees = real
    }
  }
  c.estimateFees = async () => fees
}

/** A user with 1 AVAX whose address holds platform gas already (a first withdrawal brought it). */
async function warmUser(payer: number) {
  const user = await createUser(t)
  await fundUser(t, payer, user, 'avax', 1n * AVAX)
  await withdraw(user, 0.01)
  await settleAll(t)
  return user
}

async function withdraw(user: TestUser, amount: number) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin: 'avax', address: freshAddress(), password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  const w = await db()
    .selectFrom('withdrawals')
    .selectAll()
    .where('id', '=', res.json().data.withdrawalId)
    .executeTakeFirstOrThrow()
  return w.outgoingId!
}

/** A withdrawal signed and broadcast with automine off: its transaction waits in the pool. */
async function pendingWithdrawal(user: TestUser, amount = 0.2) {
  await chain().devnet!.setAutomine(false)
  const transferId = await withdraw(user, amount)
  for (let i = 0; i < 10 && (await transferRow(transferId)).status !== 'sent'; i++) {
    await t.drain()
    t.clock.advance(1_000)
  }
  expect((await transferRow(transferId)).status).toBe('sent')
  return transferId
}

/** Fees no block takes: a transaction signed with them stays pending. */
const tooLow: FeeEstimate = { type: 'eip1559', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }

describe('replacing a transfer now', () => {
  it('is refused once the chain mined its transaction, before the receipt is read (TRANSFER_NOT_STUCK)', async () => {
    const user = await warmUser(7)
    const transferId = await pendingWithdrawal(user)
    const before = await transferRow(transferId)
    // Mined, but no run has read the receipt yet: the transfer still reads "sent".
    await chain().devnet!.mine(1)
    expect(await chain().getNonce(before.fromAddress, 'latest')).toBe(Number(before.nonce) + 1)
    expect((await transferRow(transferId)).status).toBe('sent')

    expectError(await replace(transferId), 409, 'TRANSFER_NOT_STUCK')
    expect(await storedTransactions(transferId)).toHaveLength(1)
    expect((await transferRow(transferId)).txHash).toBe(before.txHash)

    await chain().devnet!.setAutomine(true)
    await settleAll(t)
    expect((await transferRow(transferId)).status).toBe('completed')
    await expectConsistent(t)
  })

  it('is refused after the last allowed replacement (TRANSFER_REPLACE_LIMIT)', async () => {
    const user = await warmUser(8)
    estimateAs(tooLow)
    const transferId = await pendingWithdrawal(user)
    // Replacements at fees a block takes, none broadcast yet (automine is off, no run is due).
    restoreEstimate?.()
    restoreEstimate = undefined
    const max = 5
    for (let i = 1; i <= max; i++) {
      const res = expectOk(await replace(transferId))
      expect(res.transfer.replacements).toBe(i)
    }
    const res = await replace(transferId)
    expectError(res, 409, 'TRANSFER_REPLACE_LIMIT')
    expect(res.json().message).toContain(`replaced ${max} times`)
    expect(await storedTransactions(transferId)).toHaveLength(max + 1)
    await landBroadcast(transferId)
  })

  it('is refused when the replacement would pay more per gas than the coin allows (TRANSFER_REPLACE_LIMIT)', async () => {
    const user = await warmUser(9)
    estimateAs(tooLow)
    const transferId = await pendingWithdrawal(user)
    const coin = chain().coins.find((c) => c.reference === 'avax')!
    const cap = coin.maxFeePerGas
    // The network asks 200 gwei; the coin pays 100 at most.
    estimateAs({ type: 'eip1559', maxFeePerGas: 200_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n })
    ;(coin as { maxFeePerGas?: bigint }).maxFeePerGas = 100_000_000_000n
    try {
      const res = await replace(transferId)
      expectError(res, 409, 'TRANSFER_REPLACE_LIMIT')
      expect(res.json().message).toContain('maximum of avax')
    } finally {
      ;(coin as { maxFeePerGas?: bigint }).maxFeePerGas = cap
    }
    expect(await storedTransactions(transferId)).toHaveLength(1)
    await landNow(transferId)
  })

  it('is refused while the higher fees need a gas top-up first, and asks for one (TRANSFER_AWAITS_GAS)', async () => {
    const user = await warmUser(10)
    estimateAs(tooLow)
    const transferId = await pendingWithdrawal(user)
    const from = (await walletAddress(t, user)).toLowerCase()
    const topUps = () =>
      db()
        .selectFrom('outgoingTransfers')
        .select('id')
        .where('purpose', '=', 'gas.topup')
        .where('toAddress', '=', from)
        .execute()
    const topUpsBefore = (await topUps()).length
    // Fees far above what the address's parked gas can pay (and no coin maximum).
    estimateAs({ type: 'eip1559', maxFeePerGas: 5_000_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n })

    expectError(await replace(transferId), 409, 'TRANSFER_AWAITS_GAS')
    expect(await storedTransactions(transferId)).toHaveLength(1)
    expect((await topUps()).length).toBe(topUpsBefore + 1)
    await landNow(transferId)
  })
})

/** Replaced at today's fees, then broadcast and mined: nothing stays pending at fees no block takes. */
async function landNow(transferId: string) {
  restoreEstimate?.()
  restoreEstimate = undefined
  await elevateSession(t, admin)
  expectOk(await replace(transferId))
  await landBroadcast(transferId)
}

/** The stored current transaction broadcast by the next run, mined, and the transfer settled. */
async function landBroadcast(transferId: string) {
  await t.drain()
  await chain().devnet!.mine(1)
  await chain().devnet!.setAutomine(true)
  await settleAll(t)
  expect((await transferRow(transferId)).status).toBe('completed')
  await expectConsistent(t)
}
