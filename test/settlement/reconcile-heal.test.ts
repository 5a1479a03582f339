// Drift that heals itself: deposits the watcher moved past without crediting (as one empty
// eth_getLogs answer once made it do) are found by reconciliation's rescan of the address and
// credited once, through the watcher's own keys, with no halt; drift that no rescan explains still
// halts the coin. Real dev chain; both database drivers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RECONCILE_JOB } from '../../src/modules/settlement/reconcile/job.ts'
import { RESCAN_JOB, rescanAddresses } from '../../src/modules/settlement/reconcile/rescan.ts'
import { watcherRepo } from '../../src/modules/settlement/watcher/repo.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { AVAX, balanceOf, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let t: TestApp
const s = () => t.app.services
const outsider = () => s().chain.devnet!.accounts[7]!
const chainKey = () => String(s().chain.chainId)

beforeAll(async () => {
  t = await createTestApp()
  await s().chain.devnet!.fund(outsider().address, 'usdc', 1_000n * USDC)
  await s().settlement.watcher.scanNow()
})
afterAll(() => t?.close())

/** The watcher's cursor set to `block` without reading what lies before it: what it missed. */
async function moveCursorTo(block: bigint) {
  const b = (await s().chain.getBlock(block))!
  await t.database.db.transaction().execute(async (tx) => {
    await watcherRepo.lockCursor(tx, chainKey())
    await watcherRepo.moveCursor(tx, chainKey(), b, t.clock.now())
  })
}

/** Jobs of `kind` waiting to run. */
const queued = (kind: string) =>
  t.database.db
    .selectFrom('jobs')
    .select(['kind', 'runAt'])
    .where('kind', '=', kind)
    .where('status', '=', 'queued')
    .execute()

const depositsOf = (userId: string) =>
  t.database.db
    .selectFrom('transactions')
    .select(['coin', 'amount', 'txHash'])
    .where('ownerId', '=', userId)
    .where('type', '=', 'deposit')
    .execute()

describe('drift of more on chain than in the ledger', () => {
  it('is rescanned and credited once before anything halts', { timeout: 120_000 }, async () => {
    const user = await createUser(t)
    const address = await walletAddress(t, user)
    await s().settlement.watcher.scanNow()
    // Deposits the watcher moves past without reading them: a token transfer and native value.
    await sendFrom(t, outsider(), address, 'usdc', 7n * USDC)
    await sendFrom(t, outsider(), address, 'avax', AVAX / 2n)
    await moveCursorTo(await s().chain.blockNumber())
    expect(await balanceOf(t, user.id, 'usdc')).toBe(0n)

    const run = await s().settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'mismatch', halted: [] })
    expect(run.rescanning).toEqual(
      expect.arrayContaining([
        { address: address.toLowerCase(), coin: 'usdc', drift: (7n * USDC).toString() },
        { address: address.toLowerCase(), coin: 'avax', drift: (AVAX / 2n).toString() },
      ]),
    )
    expect(await queued(RESCAN_JOB)).toHaveLength(1)

    // The rescan job credits what was missed, then reconciliation checks again.
    await t.drain()
    expect(await balanceOf(t, user.id, 'usdc')).toBe(7n * USDC)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX / 2n)
    const [after] = await s().settlement.reconciliation.latest(1)
    expect(after).toMatchObject({ status: 'ok' })
    expect(after!.id).not.toBe(run.id)
    expect(await s().settlement.halts.list()).toEqual([])
    const records = await depositsOf(user.id)
    expect(records.map((r) => r.coin).sort()).toEqual(['avax', 'usdc'])
    const audit = await t.database.db
      .selectFrom('auditLog')
      .select('meta')
      .where('action', '=', 'chain.rescan')
      .execute()
    expect(audit).toHaveLength(2)

    // Once: a second rescan finds nothing new, and the watcher reading those blocks again neither.
    const again = await rescanAddresses(deps(), [{ address, coin: 'usdc', drift: '0' }])
    expect(again.found).toEqual([])
    const cursor = (await s().settlement.watcher.cursor())!.number
    await moveCursorTo(cursor - 3n)
    await s().settlement.watcher.scanNow()
    expect(await balanceOf(t, user.id, 'usdc')).toBe(7n * USDC)
    expect(await balanceOf(t, user.id, 'avax')).toBe(AVAX / 2n)
    expect(await depositsOf(user.id)).toHaveLength(2)
    await expectLedgerConsistent(t.database.db, { chain: s().chain })
  })

  it('that no rescan explains still halts the coin, after the rescan', { timeout: 120_000 }, async () => {
    const user = await createUser(t)
    const address = await walletAddress(t, user)
    await sendFrom(t, outsider(), address, 'usdc', 10n * USDC)
    await s().settlement.watcher.scanNow()
    expect(await balanceOf(t, user.id, 'usdc')).toBe(10n * USDC)
    // 4 USDC leave the user's ledger account with nothing on chain: the chain holds more.
    await t.database.db.transaction().execute(async (tx) => {
      const account = await s().ledger.ensureAccount(tx, 'user', user.id, 'usdc')
      const clearing = await s().ledger.ensureAccount(tx, 'chain', chainKey(), 'usdc')
      await s().ledger.transfer(tx, {
        key: 'test:unexplained-debit',
        coin: 'usdc',
        legs: [
          { account, amount: -4n * USDC },
          { account: clearing, amount: 4n * USDC },
        ],
      })
    })
    const run = await s().settlement.reconciliation.runNow()
    expect(run).toMatchObject({ status: 'mismatch', halted: [] })
    expect(run.rescanning).toEqual([
      { address: address.toLowerCase(), coin: 'usdc', drift: (4n * USDC).toString() },
    ])
    expect(await s().settlement.halts.list()).toEqual([])

    await t.drain()
    expect(await balanceOf(t, user.id, 'usdc')).toBe(6n * USDC)
    const [check] = await s().settlement.reconciliation.latest(1)
    expect(check).toMatchObject({ status: 'mismatch' })
    const halts = await s().settlement.halts.list()
    expect(halts).toHaveLength(1)
    expect(halts[0]).toMatchObject({
      coin: 'usdc',
      reason: 'ledger_mismatch',
      details: {
        runId: check!.id,
        mismatches: [{ address: address.toLowerCase(), drift: (4n * USDC).toString() }],
      },
    })
    // no second rescan of the same drift: the check after a rescan is the last word
    expect(await queued(RESCAN_JOB)).toEqual([])
    expect((await queued(RECONCILE_JOB)).filter((j) => j.runAt <= t.clock.now())).toEqual([])
  })
})

function deps() {
  const services = s()
  return {
    database: t.database,
    chain: services.chain,
    clock: t.clock,
    log: t.app.log as never,
    jobs: services.jobs,
    halts: services.settlement.halts,
    ledger: services.ledger as never,
    transactions: services.transactions,
  }
}
