// The statements of POST /v1/withdrawals/: four for a user's second withdrawal. Before the
// transaction (the coin's halts and the user's address answered by what the process keeps): the
// password check (the user read, the account's password lock and its wrong-password count as they
// are once the lock is granted, in one statement). In it: the halts again, both holds on the wallet account (`ledger_write_holds`: account,
// lock, claims, held), and the withdrawal row written with its audit entry, its transaction
// record, its outgoing transfer and the transfer's job (settlement's `enqueueWrites`: the
// sender's address is the one the process keeps, and the funding hold it checks is answered by
// the ledger as written). The result is checked whole: holds, transfer, job, record, audit,
// balances, and the send on the dev chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, balanceOf, expectConsistent, freshAddress, fundUser, settleAll } from './helpers.ts'

let t: TestApp
let user: TestUser
const FEE = AVAX / 1000n

beforeAll(async () => {
  t = await createTestApp()
  user = await createUser(t)
  await fundUser(t, 0, user, 'avax', 2n * AVAX)
})
afterAll(() => t?.close())

async function counted(to: string, amount: number, headers: Record<string, string> = {}) {
  const before = t.database.queryCount()
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin: 'avax', address: to, password: user.password },
    headers,
  })
  const queries = t.database.queryCount() - before
  expect(res.statusCode, res.body).toBe(200)
  return { queries, withdrawalId: res.json().data.withdrawalId as string }
}

describe('statements per withdrawal requested', () => {
  it('POST /v1/withdrawals/ takes four, and holds, queues and records everything', async () => {
    // The first request of the user in this process; the second is counted.
    await counted(freshAddress(), 0.1)
    const balance = await balanceOf(t, user.id, 'avax')
    const to = freshAddress()
    const { queries, withdrawalId } = await counted(to, 0.25)
    expect(queries).toBe(4)

    const db = t.database.db
    const w = await db
      .selectFrom('withdrawals')
      .selectAll()
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(w).toMatchObject({
      ownerId: user.id,
      coin: 'avax',
      address: to,
      amount: (AVAX / 4n).toString(),
      fee: FEE.toString(),
      status: 'pending',
    })
    // Two holds on the wallet account: the amount's and the fee's.
    const holds = await db
      .selectFrom('ledgerHolds')
      .innerJoin('ledgerAccounts', 'ledgerAccounts.id', 'ledgerHolds.accountId')
      .select([
        'ledgerHolds.id',
        'ledgerHolds.amount',
        'ledgerHolds.kind',
        'ledgerHolds.status',
        'ledgerHolds.idempotencyKey',
      ])
      .select(['ledgerAccounts.kind as accountKind', 'ledgerAccounts.ownerId'])
      .where('ledgerHolds.id', 'in', [w.holdId!, w.feeHoldId!])
      .orderBy('ledgerHolds.amount', 'desc')
      .execute()
    expect(holds).toEqual([
      {
        id: w.holdId,
        amount: (AVAX / 4n).toString(),
        kind: 'withdrawal',
        status: 'pending',
        idempotencyKey: `withdrawal:${withdrawalId}:hold`,
        accountKind: 'user',
        ownerId: user.id,
      },
      {
        id: w.feeHoldId,
        amount: FEE.toString(),
        kind: 'withdrawal.fee',
        status: 'pending',
        idempotencyKey: `withdrawal:${withdrawalId}:fee-hold`,
        accountKind: 'user',
        ownerId: user.id,
      },
    ])
    // The outgoing transfer, funded by the amount's hold, and its job.
    const transfer = await db
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', w.outgoingId!)
      .executeTakeFirstOrThrow()
    expect(transfer).toMatchObject({
      purpose: 'withdrawal',
      referenceId: withdrawalId,
      idempotencyKey: `withdrawal:${withdrawalId}`,
      fromKind: 'user',
      fromOwnerId: user.id,
      toAddress: to.toLowerCase(),
      amount: (AVAX / 4n).toString(),
      fundingHoldId: w.holdId,
    })
    const jobs = await db
      .selectFrom('jobs')
      .select('status')
      .where('kind', '=', 'outgoing.send')
      .where('dedupeKey', '=', `outgoing.send:${transfer.id}:0`)
      .execute()
    expect(jobs).toHaveLength(1)
    const record = await db
      .selectFrom('transactions')
      .select(['ownerId', 'type', 'method', 'status', 'amount'])
      .where('id', '=', w.transactionId!)
      .executeTakeFirstOrThrow()
    expect(record).toEqual({
      ownerId: user.id,
      type: 'withdrawal',
      method: 'sent',
      status: 'pending',
      amount: (AVAX / 4n).toString(),
    })
    const audit = await db
      .selectFrom('auditLog')
      .select(['userId', 'meta', 'createdAt'])
      .where('action', '=', 'withdrawal.requested')
      .where('userId', '=', user.id)
      .orderBy('createdAt', 'desc')
      .executeTakeFirstOrThrow()
    expect(audit.meta).toEqual({
      withdrawalId,
      coin: 'avax',
      amount: (AVAX / 4n).toString(),
      address: to,
    })
    expect(audit.createdAt).toEqual(w.createdAt)
    // Amount and fee are gone from what the wallet can spend at once.
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance - AVAX / 4n - FEE)

    await settleAll(t)
    expect(await t.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 4n)
    const done = await db
      .selectFrom('withdrawals')
      .select('status')
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    expect(done.status).toBe('completed')
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance - AVAX / 4n - FEE)
    await expectConsistent(t)
  })

  it('a request run again under its Idempotency-Key holds and sends nothing more', async () => {
    const key = `again-${freshAddress()}`
    const to = freshAddress()
    const first = await counted(to, 0.01, { 'idempotency-key': key })
    const balance = await balanceOf(t, user.id, 'avax')
    // The stored answer is replayed: the operation does not run.
    const again = await counted(to, 0.01, { 'idempotency-key': key })
    expect(again.withdrawalId).toBe(first.withdrawalId)
    expect(await balanceOf(t, user.id, 'avax')).toBe(balance)
    const transfers = await t.database.db
      .selectFrom('outgoingTransfers')
      .select('id')
      .where('referenceId', '=', first.withdrawalId)
      .execute()
    expect(transfers).toHaveLength(1)
    await settleAll(t)
    await expectConsistent(t)
  })
})
