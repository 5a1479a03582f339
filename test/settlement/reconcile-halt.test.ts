// Reconciliation: the ledger invariants and ledger = chain, checked by a job and on demand, each
// run stored per coin. A mismatch halts the coin: the watcher parks its movements and nothing is
// sent in it until an operator resumes it; /ready says so. Both database drivers.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Halts } from '../../src/modules/settlement/reconcile/halts.ts'
import { RECONCILE_JOB, type ReconcileRun } from '../../src/modules/settlement/reconcile/job.ts'
import { initiate, post, settleAll } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { AVAX, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
const s = () => t.app.services
const outsider = () => s().chain.devnet!.accounts[6]!

beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
  await s().chain.devnet!.fund(outsider().address, 'usdc', 10_000n * USDC)
})
afterAll(() => t?.close())

const balance = (userId: string, coin: string) => s().ledger.balance(t.database.db, 'user', userId, coin)

/** Moves `amount` between the user's account and the chain's clearing account, with nothing on chain. */
async function forceLedger(userId: string, coin: string, amount: bigint, key: string) {
  await t.database.db.transaction().execute(async (tx) => {
    const user = await s().ledger.ensureAccount(tx, 'user', userId, coin)
    const clearing = await s().ledger.ensureAccount(tx, 'chain', String(s().chain.chainId), coin)
    await s().ledger.transfer(tx, {
      key,
      coin,
      legs: [
        { account: clearing, amount: -amount },
        { account: user, amount },
      ],
    })
  })
}

describe('a reconciliation run', () => {
  it('stores each coin’s totals and halts nothing while the ledger matches the chain', async () => {
    await sendFrom(t, outsider(), await walletAddress(t, payer), 'usdc', 500n * USDC)
    await sendFrom(t, outsider(), await walletAddress(t, payer), 'avax', 2n * AVAX)
    await s().settlement.watcher.scanNow()
    const run = await s().settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'ok', violations: [], halted: [], error: null })
    expect(run.coins.map((c) => c.coin).sort()).toEqual(['avax', 'usdc'])
    for (const c of run.coins) {
      expect(c.drift).toBe('0')
      expect(c.ledgerTotal).toBe(c.chainTotal)
      expect(c.checked).toBeGreaterThanOrEqual(2)
    }
    expect(BigInt(run.coins.find((c) => c.coin === 'usdc')!.chainTotal)).toBeGreaterThanOrEqual(500n * USDC)
    const [stored] = await s().settlement.reconciliation.latest(1)
    expect(stored).toMatchObject({ id: run.id, status: 'ok', blockNumber: Number(run.block) })
    expect(stored!.results.map((r) => [r.coin, r.drift, r.ledgerTotal === r.chainTotal])).toEqual([
      ['avax', '0', true],
      ['usdc', '0', true],
    ])
    expect(await s().settlement.readiness()).toEqual({ haltedCoins: [] })
  })

  it('halts a coin whose ledger does not match the chain: no crediting, no sending, until resumed', async () => {
    const q = await initiate(t, payer, receiver, { coin: 'usdc', amount: 20 })
    await sendFrom(t, outsider(), q.address, 'usdc', BigInt(q.amountToPayBaseUnits))
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'paid',
    )
    const payerUsdc = await balance(payer.id, 'usdc')

    // 5 USDC appear in the payer's ledger account with nothing on chain.
    await forceLedger(payer.id, 'usdc', 5n * USDC, 'test:forced-credit')
    const run = await s().settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'mismatch', halted: ['usdc'], violations: [] })
    expect(run.coins.find((c) => c.coin === 'usdc')!.drift).toBe((-5n * USDC).toString())
    expect(run.coins.find((c) => c.coin === 'avax')!.drift).toBe('0')
    const [halt] = await s().settlement.halts.list()
    expect(halt).toMatchObject({
      coin: 'usdc',
      reason: 'ledger_mismatch',
      haltedBy: 'system',
      details: {
        runId: run.id,
        drift: (-5n * USDC).toString(),
        mismatches: [
          {
            address: (await walletAddress(t, payer)).toLowerCase(),
            ownerKind: 'user',
            ownerId: payer.id,
            drift: (-5n * USDC).toString(),
          },
        ],
      },
    })
    expect((await s().settlement.readiness()).haltedCoins).toEqual([
      { coin: 'usdc', reason: 'ledger_mismatch', since: expect.any(String) },
    ])
    // /ready shows the halt to an operator; the process stays ready for everything else.
    const ready = await t.req({ method: 'GET', url: '/ready' })
    expect(ready.statusCode, ready.body).toBe(200)
    expect(ready.json()).toMatchObject({
      status: 'success',
      message: 'ready; payments paused in usdc',
      data: { haltedCoins: [{ coin: 'usdc', reason: 'ledger_mismatch', since: halt!.haltedAt }] },
    })
    // The run's drift and the halt are system events of the audit log.
    const events = await t.database.db
      .selectFrom('auditLog')
      .select(['action', 'meta'])
      .where('userId', 'is', null)
      .where('action', 'in', ['reconciliation.drift', 'coin.halted'])
      .execute()
    expect(events.map((e) => e.action).sort()).toEqual(['coin.halted', 'reconciliation.drift'])
    expect(events.find((e) => e.action === 'reconciliation.drift')!.meta).toMatchObject({
      halted: ['usdc'],
      coins: [expect.objectContaining({ coin: 'usdc' })],
    })
    // Another run finds the same; the coin stays halted once.
    expect((await s().settlement.reconciliation.runNow()).halted).toEqual([])
    expect(
      await t.database.db.selectFrom('coinHalts').select('id').where('coin', '=', 'usdc').execute(),
    ).toHaveLength(1)

    // Crediting stops for USDC (recorded, parked) but not for AVAX.
    const payerAddress = await walletAddress(t, payer)
    await sendFrom(t, outsider(), payerAddress, 'usdc', 3n * USDC)
    await sendFrom(t, outsider(), payerAddress, 'avax', AVAX / 4n)
    const avaxBefore = await balance(payer.id, 'avax')
    await s().settlement.watcher.scanNow()
    expect(await balance(payer.id, 'usdc')).toBe(payerUsdc + 5n * USDC)
    expect(await balance(payer.id, 'avax')).toBe(avaxBefore + AVAX / 4n)
    const parked = await t.database.db
      .selectFrom('chainEvents')
      .select(['coin', 'transferId'])
      .where('address', '=', payerAddress.toLowerCase())
      .where('held', 'is not', null)
      .execute()
    expect(parked).toEqual([{ coin: 'usdc', transferId: null }])

    // Sending stops for USDC: nothing is released, refunded or paid in it.
    for (const url of ['/v1/escrow/release', '/v1/escrow/cancel']) {
      const res = await post(t, payer, url, { escrowId: q.escrowId })
      expect(res.statusCode, res.body).toBe(503)
      expect(res.json()).toMatchObject({ status: 'error', data: { code: 'COIN_HALTED', coin: 'usdc' } })
    }
    const pay = await post(t, payer, '/v1/escrow/pay', { escrowId: q.escrowId, password: payer.password })
    expect(pay.statusCode, pay.body).toBe(503)
    expect(pay.json()).toMatchObject({ data: { code: 'COIN_HALTED' } })
    await expect(s().settlement.halts.assertNotHalted('usdc')).rejects.toMatchObject({ code: 'COIN_HALTED' })
    await expect(s().settlement.halts.assertNotHalted('avax')).resolves.toBeUndefined()
    // Only the payer may still be told no first.
    expect((await post(t, receiver, '/v1/escrow/release', { escrowId: q.escrowId })).statusCode).toBe(403)
    // A withdrawal in USDC is refused at once: nothing is held or queued.
    const beforeWithdrawal = await balance(payer.id, 'usdc')
    const w = await post(t, payer, '/v1/withdrawals/', {
      amount: 1,
      coin: 'usdc',
      address: outsider().address,
      password: payer.password,
    })
    expect(w.statusCode, w.body).toBe(503)
    expect(w.json()).toMatchObject({ status: 'error', data: { code: 'COIN_HALTED', coin: 'usdc' } })
    expect(await balance(payer.id, 'usdc')).toBe(beforeWithdrawal)
    expect(
      await t.database.db
        .selectFrom('outgoingTransfers')
        .select('id')
        .where('purpose', '=', 'withdrawal')
        .execute(),
    ).toEqual([])

    // The operator reverses the bad entry and resumes the coin.
    await forceLedger(payer.id, 'usdc', -5n * USDC, 'test:forced-credit:reversed')
    await expect(s().settlement.halts.resume('usdc', ' ', 'x')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    })
    const resumed = await s().settlement.halts.resume('usdc', 'operator-7', 'forced entry reversed')
    expect(resumed).toMatchObject({ coin: 'usdc', reason: 'ledger_mismatch' })
    await expect(s().settlement.halts.resume('usdc', 'operator-7', 'again')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    })
    const cleared = await t.database.db
      .selectFrom('coinHalts')
      .select(['clearedBy', 'clearReason', 'clearedAt'])
      .where('coin', '=', 'usdc')
      .executeTakeFirstOrThrow()
    expect(cleared).toMatchObject({ clearedBy: 'operator-7', clearReason: 'forced entry reversed' })
    expect(await s().settlement.readiness()).toEqual({ haltedCoins: [] })
    const readyAgain = await t.req({ method: 'GET', url: '/ready' })
    expect(readyAgain.statusCode).toBe(200)
    expect(readyAgain.json()).toMatchObject({ message: 'ready', data: { haltedCoins: [] } })

    // The parked deposit is credited, once; a withdrawal is taken again and goes out.
    await s().settlement.watcher.scanNow()
    await s().settlement.watcher.scanNow()
    expect(await balance(payer.id, 'usdc')).toBe(payerUsdc + 3n * USDC)
    const again = await post(t, payer, '/v1/withdrawals/', {
      amount: 1,
      coin: 'usdc',
      address: outsider().address,
      password: payer.password,
    })
    expect(again.statusCode, again.body).toBe(200)
    const withdrawal = () =>
      t.database.db
        .selectFrom('outgoingTransfers')
        .select(['status', 'txHash'])
        .where('purpose', '=', 'withdrawal')
        .executeTakeFirstOrThrow()
    expect((await s().settlement.reconciliation.runNow()).status).toBe('ok')
    const r = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
    expect(r.statusCode, r.body).toBe(200)
    await settleAll(t)
    expect((await withdrawal()).status).toBe('completed')
    await expectLedgerConsistent(t.database.db, { chain: s().chain })
  })

  it('halts a coin whose ledger breaks an invariant', async () => {
    const chainId = String(s().chain.chainId)
    // The chain's clearing account keeps no cached balance; a stray one is a breach.
    await t.database.db
      .updateTable('ledgerAccounts')
      .set({ balance: '1' })
      .where('kind', '=', 'chain')
      .where('ownerId', '=', chainId)
      .where('coin', '=', 'avax')
      .execute()
    const run = await s().settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'mismatch', halted: ['avax'] })
    expect(run.violations).toEqual([
      expect.objectContaining({
        check: 'system_balance_cached',
        coin: 'avax',
        detail: expect.objectContaining({ balance: '1' }),
      }),
    ])
    expect((await s().settlement.halts.list()).map((h) => [h.coin, h.reason])).toEqual([
      ['avax', 'ledger_invariant'],
    ])
    await t.database.db
      .updateTable('ledgerAccounts')
      .set({ balance: '0' })
      .where('kind', '=', 'chain')
      .where('ownerId', '=', chainId)
      .where('coin', '=', 'avax')
      .execute()
    await s().settlement.halts.resume('avax', 'operator-7', 'stray balance cleared')
    expect((await s().settlement.reconciliation.runNow()).status).toBe('ok')
  })

  it('stores a run that could not read the chain as failed, and halts nothing', async () => {
    s().chain.devnet!.setDown(true)
    let run: ReconcileRun
    try {
      run = await s().settlement.reconciliation.runNow()
    } finally {
      s().chain.devnet!.setDown(false)
    }
    expect(run).toMatchObject({ status: 'failed', halted: [], error: expect.any(String) })
    expect((await s().settlement.reconciliation.latest(1))[0]).toMatchObject({ id: run.id, status: 'failed' })
    expect(await s().settlement.halts.list()).toEqual([])
  })

  it('runs as a job every interval', async () => {
    const runs = async () =>
      (await t.database.db.selectFrom('reconciliationRuns').select('id').execute()).length
    const before = await runs()
    t.clock.advance(11 * 60_000)
    await t.drain()
    expect(await runs()).toBe(before + 1)
    const next = await t.database.db
      .selectFrom('jobs')
      .select('runAt')
      .where('kind', '=', RECONCILE_JOB)
      .where('status', '=', 'queued')
      .execute()
    expect(next).toHaveLength(1)
    expect(next[0]!.runAt.getTime()).toBeGreaterThan(t.clock.now().getTime())
    await expectLedgerConsistent(t.database.db, { chain: s().chain })
  })
})

describe('halt and resume logs', () => {
  it('writes one structured line for each, with ids and amounts', async () => {
    const lines: Record<string, unknown>[] = []
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    const halts = new Halts({ db: t.database.db, clock: t.clock, log })
    const details = { runId: 'r'.repeat(24), drift: '-5000000' }
    expect(
      await halts.halt(t.database.db, { coin: 'usdc', reason: 'manual', details, by: 'operator-9' }),
    ).toBe(true)
    expect(await halts.halt(t.database.db, { coin: 'usdc', reason: 'manual', details })).toBe(false)
    await halts.resume('usdc', 'operator-9', 'checked')
    expect(lines.map((l) => [l.event, l.coin])).toEqual([
      ['coin.halted', 'usdc'],
      ['coin.resumed', 'usdc'],
    ])
    expect(lines[0]).toMatchObject({ level: 50, reason: 'manual', details, haltId: expect.any(String) })
    expect(lines[1]).toMatchObject({
      level: 40,
      haltId: lines[0]!.haltId,
      by: 'operator-9',
      reason: 'checked',
    })
  })
})
