// A snapshot taken while transfers run sees one state of the ledger: read page by page (small
// pages here) in one repeatable-read transaction, its liabilities add up to what the accounts hold
// together, however value moves between them meanwhile (on PostgreSQL the transfers run on other
// connections at the same time).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { takeSnapshots } from '../../src/modules/reserves/snapshot.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { expectLedgerConsistent, fundedAccount, moveValue } from '../helpers/ledger.ts'

let t: TestApp
const ACCOUNTS = 40

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

async function usdcHoldings() {
  const { ledger } = t.app.services
  const rows = await ledger.holdings(t.database.db, '', 100_000)
  return rows.filter((r) => r.coin === 'usdc').reduce((s, r) => s + r.balance, 0n)
}

describe('a snapshot under concurrent transfers', () => {
  it('states liabilities that add up to one state of the ledger', async () => {
    const s = t.app.services
    const db = t.database.db
    const accounts: string[] = []
    for (let i = 0; i < ACCOUNTS; i++) accounts.push((await fundedAccount(db, s.ledger, 1000n)).user)
    accounts.sort()
    const total = await usdcHoldings()

    // Value keeps moving between the first and the last accounts of the id order (read on the
    // first and the last page) until the snapshot is stored.
    let stop = false
    let moved = 0
    let underWay!: () => void
    const started = new Promise<void>((r) => {
      underWay = r
    })
    const mover = async (lane: number) => {
      for (let n = 0; !stop; n++) {
        const a = accounts[lane]!
        const b = accounts[accounts.length - 1 - lane]!
        const [from, to] = n % 2 === 0 ? [a, b] : [b, a]
        await moveValue(db, s.ledger, { key: `mv:${lane}:${n}`, from, to, amount: 7n })
        if (++moved === 8) underWay()
        // a turn of the event loop between transfers, so that timers and I/O run meanwhile
        await new Promise((r) => setImmediate(r))
      }
    }
    const lanes = [0, 1, 2, 3].map(mover)
    // the snapshot starts once transfers are under way (a failed transfer fails the test)
    await Promise.race([Promise.all(lanes), started])
    const taken = await takeSnapshots(
      {
        db,
        chain: s.chain,
        clock: s.clock,
        log: s.log,
        secrets: s.secrets,
        attestationKey: t.config.reservesAttestationKey,
        ledger: s.ledger,
        keys: s.keys,
        escrowParties: (ex, ids) => s.escrow.parties(ex, ids),
        cursor: (ex) => s.settlement.watcher.cursor(ex),
        pageSize: 3,
      },
      { trigger: 'operator', requestedBy: null },
    ).finally(() => {
      stop = true
    })
    const before = moved
    stop = true
    await Promise.all(lanes)
    expect(moved).toBeGreaterThan(before - 1)
    const usdc = taken.find((x) => x.coin === 'usdc')!
    expect(usdc.liabilitiesTotal).toBe(total)
    // each stored leaf sum is some account's balance in that state; the leaves sum to the root
    const leaves = await db
      .selectFrom('reserveNodes')
      .select(['sum'])
      .where('snapshotId', '=', usdc.id)
      .where('level', '=', 0)
      .execute()
    expect(leaves.reduce((a, r) => a + BigInt(r.sum), 0n)).toBe(total)
    expect(await usdcHoldings()).toBe(total)
    await expectLedgerConsistent(db)
  })
})
