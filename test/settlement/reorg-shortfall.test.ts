// A deep reorganisation that takes back a deposit its owner had already partly spent (a withdrawal
// on the replaced branch): what is left is held, the rest is the finding's shortfall; reversing it
// takes the wallet's later funds first and books what is still missing to the platform's loss
// account, which the dashboard shows; a parked (never credited) deposit it took back is dropped.
// Real dev chain, both database drivers.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { expectOk } from '../admin/helpers.ts'
import { settleAll } from '../escrow/helpers.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { USDC, walletAddress } from '../helpers/money.ts'
import { adminCalls, deepReorg, deposit, openReorgWorld, type ReorgWorld } from './reorg-support.ts'

let w: ReorgWorld
const s = () => w.t.app.services
const db = () => w.t.database.db
const available = (userId: string) => s().ledger.balance(db(), 'user', userId, 'usdc')

beforeAll(async () => {
  w = await openReorgWorld(8)
})
afterAll(() => w?.t.close())

it('holds what is left, takes later funds first, and books the rest to the platform loss account', async () => {
  const api = adminCalls(w)
  const user = await createUser(w.t)
  const address = await walletAddress(w.t, user)
  const sent = await deepReorg(w, async () => {
    const d = await deposit(w, address, 'usdc', 2n * USDC)
    await s().settlement.watcher.scanNow()
    // 1.5 USDC withdrawn (+ 0.1 network fee) and mined on the branch about to be replaced
    const res = await w.t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 1.5, coin: 'usdc', address: w.payer.address, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    await settleAll(w.t)
    expect(await available(user.id)).toBe((USDC * 4n) / 10n)
    return d
  })

  const f = await api.finding(sent.hash, 'usdc')
  expect(f).toMatchObject({
    status: 'open',
    amount: (2n * USDC).toString(),
    held: ((USDC * 4n) / 10n).toString(),
    shortfall: ((USDC * 16n) / 10n).toString(),
  })
  expect(await available(user.id)).toBe(0n)

  // A later deposit (the coin resumed for it) covers part of the shortfall.
  expectOk(await api.post('/v1/admin/coins/usdc/resume', { reason: 'finding held; resuming usdc' }))
  await deposit(w, address, 'usdc', USDC)
  await s().settlement.watcher.scanNow()
  expect(await available(user.id)).toBe(USDC)

  const reversed = expectOk(await api.post(`/v1/admin/reorgs/${f._id}/reverse`))
  expect(reversed).toMatchObject({ status: 'reversed', shortfall: ((USDC * 6n) / 10n).toString() })
  expect(reversed.lossTransferId).toEqual(expect.any(String))
  expect(await available(user.id)).toBe(0n)
  const loss = await db()
    .selectFrom('ledgerAccounts')
    .select('id')
    .where('kind', '=', 'platform_loss')
    .where('coin', '=', 'usdc')
    .executeTakeFirstOrThrow()
  const lossEntries = await s().ledger.entries(db(), reversed.lossTransferId)
  expect(lossEntries.find((e) => e.accountId === loss.id)?.amount).toBe(-(USDC * 6n) / 10n)

  // The dashboard shows the loss per coin.
  const overview = expectOk(await api.get('/v1/admin/stats/overview'))
  const usdc = overview.balances.find((b: { coin: string }) => b.coin === 'usdc')
  expect(usdc.platformLoss).toBe(((USDC * 6n) / 10n).toString())
  expect(
    (await db().selectFrom('notifications').select('type').where('userId', '=', user.id).execute()).map(
      (n) => n.type,
    ),
  ).toContain('deposit_reversed')
  // Every transfer balances, no account but the clearing and loss accounts is below zero.
  await expectLedgerConsistent(db())
})

it('takes a parked deposit the reorganisation took back out of the parking: resuming credits nothing', async () => {
  const api = adminCalls(w)
  const user = await createUser(w.t)
  const address = await walletAddress(w.t, user)
  // USDC is halted by hand first: the deposit is recorded but parked, never credited.
  expectOk(await api.post('/v1/admin/coins/usdc/halt', { reason: 'issuer incident' }))
  const sent = await deepReorg(w, async () => {
    const d = await deposit(w, address, 'usdc', 7n * USDC)
    await s().settlement.watcher.scanNow()
    const parked = await db()
      .selectFrom('chainEvents')
      .select('held')
      .where('txHash', '=', d.hash.toLowerCase())
      .executeTakeFirstOrThrow()
    expect(parked.held).not.toBeNull()
    return d
  })
  const f = await api.finding(sent.hash, 'usdc')
  expect(f).toMatchObject({
    status: 'dropped',
    credited: false,
    holdId: null,
    resolvedBy: 'system',
    actions: { reverse: false, keep: false },
  })
  expect(
    await db()
      .selectFrom('chainEvents')
      .select('txHash')
      .where('txHash', '=', sent.hash.toLowerCase())
      .execute(),
  ).toEqual([])
  await api.resumeAll()
  await s().settlement.watcher.scanNow()
  await s().settlement.watcher.scanNow()
  expect(await available(user.id)).toBe(0n)
  await expectLedgerConsistent(db())
})
