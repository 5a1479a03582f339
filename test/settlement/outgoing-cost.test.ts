// What the outgoing sender costs per transfer: withdrawals from a few funded wallets run through to
// completion, with every statement and every chain call counted, those made by the transfers' own
// runs (`outgoing.send`) apart from the rest of the work (job claims, reports, the withdrawals'
// handlers, the deposit watcher). The counts are printed, and bounded so that a change that makes
// a run load its row again, or look for a receipt once more, shows here.
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import {
  AVAX,
  freshAddress,
  fundUser,
  openTransfers,
  settleAll,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

const WALLETS = 3
const PER_WALLET = 5
const TRANSFERS = WALLETS * PER_WALLET

let t: TestApp
let users: TestUser[]

beforeAll(async () => {
  t = await createTestApp()
  users = []
  for (let i = 0; i < WALLETS; i++) {
    const user = await createUser(t)
    await fundUser(t, 3 + i, user, 'avax', 10n * AVAX)
    users.push(user)
  }
  // A first withdrawal from each wallet brings the address its gas; the measured ones find it parked.
  for (const user of users) await withdrawAvax(t, user, 0.01, freshAddress())
  await settleAll(t)
})
afterAll(() => t?.close())

const CHAIN_CALLS = [
  'estimateFees',
  'estimateTransferGas',
  'estimateValueGas',
  'isContract',
  'getNonce',
  'broadcast',
  'getReceipt',
  'receiptDetails',
  'blockNumber',
  'confirmedHead',
  'getBlock',
  'nativeTransfers',
  'tokenTransfers',
  'verifiedTokenTransfers',
  'balanceOf',
  'balances',
] as const

type Tally = Map<string, number>
const bump = (m: Tally, k: string) => m.set(k, (m.get(k) ?? 0) + 1)

/** Counts statements (by their SQL) and chain calls, apart for the sender's runs and the rest. */
function instrument(chain: ChainAdapter) {
  const inRun = new AsyncLocalStorage<boolean>()
  const tallies = {
    runSql: new Map() as Tally,
    otherSql: new Map() as Tally,
    runChain: new Map() as Tally,
    otherChain: new Map() as Tally,
    runs: 0,
  }
  const sender = t.app.services.outgoing
  const run = sender.run.bind(sender)
  sender.run = (id, job) => {
    tallies.runs++
    return inRun.run(true, () => run(id, job))
  }
  // Every statement of either driver passes through Kysely's query executor.
  const executor = Object.getPrototypeOf(Object.getPrototypeOf((t.database.db as any).getExecutor()))
  const execute = executor.executeQuery
  executor.executeQuery = function (this: unknown, compiled: { sql: string }, ...rest: unknown[]) {
    const text = compiled.sql.replace(/\s+/g, ' ').replace(/\$\d+/g, '?').slice(0, 160)
    bump(inRun.getStore() ? tallies.runSql : tallies.otherSql, text)
    return execute.call(this, compiled, ...rest)
  }
  const originals: Array<() => void> = [() => (executor.executeQuery = execute)]
  const target = chain as unknown as Record<string, (...a: unknown[]) => unknown>
  for (const name of CHAIN_CALLS) {
    const fn = target[name]!
    target[name] = (...args: unknown[]) => {
      bump(inRun.getStore() ? tallies.runChain : tallies.otherChain, name)
      return fn.apply(chain, args)
    }
    originals.push(() => (target[name] = fn))
  }
  originals.push(() => (sender.run = run))
  return {
    tallies,
    restore: () => {
      for (const r of originals) r()
    },
  }
}

const total = (m: Tally) => [...m.values()].reduce((a, b) => a + b, 0)
/** statements that wait for their answer: a round trip each (one sent ahead travels with the next) */
const waited = (m: Tally) =>
  total(m) - [...m].filter(([k]) => k.startsWith('/* ahead */')).reduce((a, [, n]) => a + n, 0)
/** job outcomes written by the queue after a run, each a round trip of its own */
const ownOutcomes = (m: Tally) =>
  [...m].filter(([k]) => /^update "jobs" set "status"/.test(k)).reduce((a, [, n]) => a + n, 0)
const perTransfer = (n: number) => Math.round((n / TRANSFERS) * 10) / 10
const listed = (m: Tally) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${String(n).padStart(5)}  ${k}`)
    .join('\n')

it('counts the statements and chain calls of each transfer, from its queueing to its report', async () => {
  const ids: string[] = []
  for (const user of users)
    for (let i = 0; i < PER_WALLET; i++)
      ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)

  const before = t.database.queryCount()
  const { tallies, restore } = instrument(t.app.services.chain)
  try {
    for (let round = 0; round < 20 && (await openTransfers(t)).length > 0; round++) {
      await t.drain()
      t.clock.advance(60_000)
    }
  } finally {
    restore()
  }
  const statements = t.database.queryCount() - before
  expect(await openTransfers(t)).toEqual([])
  const done = await t.database.db
    .selectFrom('outgoingTransfers')
    .select(['status'])
    .where('id', 'in', ids)
    .execute()
  expect(done.map((r) => r.status)).toEqual(ids.map(() => 'completed'))

  const report = [
    `${TRANSFERS} withdrawals from ${WALLETS} wallets, ${tallies.runs} sender runs`,
    `statements per transfer: ${perTransfer(statements)} (sender runs ${perTransfer(total(tallies.runSql))}, rest ${perTransfer(total(tallies.otherSql))})`,
    `round trips per transfer: sender runs ${perTransfer(waited(tallies.runSql))}, rest ${perTransfer(waited(tallies.otherSql))}`,
    `chain calls per transfer: sender runs ${perTransfer(total(tallies.runChain))}, rest ${perTransfer(total(tallies.otherChain))}`,
    '--- statements of the sender runs',
    listed(tallies.runSql),
    '--- other statements',
    listed(tallies.otherSql),
    '--- chain calls of the sender runs',
    listed(tallies.runChain),
    '--- other chain calls',
    listed(tallies.otherChain),
  ].join('\n')
  console.log(report)
  // What a transfer's own runs cost (51 statements and 8.3 chain calls before runs stopped
  // reloading their row, looking for receipts before a first broadcast, reading the receipt twice
  // and waking every later nonce at each settlement; about 34 and 5.3 since, and 28.5 statements
  // once the gas hold was written in one statement).
  expect(total(tallies.runSql) / TRANSFERS, report).toBeLessThanOrEqual(32)
  expect(total(tallies.runChain) / TRANSFERS, report).toBeLessThanOrEqual(6)
  // A run that writes records its job done in its last transaction (sent ahead); only a run that
  // found nothing to do (its transfer settled by another run) leaves the outcome to the queue's own
  // statement, a round trip after the run (every run did, before).
  const finishedInRun = [...tallies.runSql].filter(([k]) => k.startsWith('/* ahead */ update "jobs"'))
  const inRun = finishedInRun.reduce((a, [, n]) => a + n, 0)
  expect(inRun + ownOutcomes(tallies.otherSql), report).toBe(tallies.runs)
  expect(inRun, report).toBeGreaterThanOrEqual(TRANSFERS)
  // The first broadcast is recorded (signed → sent) by the run's last transaction too, sent ahead.
  const sent = [...tallies.runSql].filter(([k]) =>
    k.includes('update "outgoing_transfers" set "status" = ?, "broadcast_at"'),
  )
  expect(sent.length, report).toBeGreaterThan(0)
  expect(
    sent.every(([k]) => k.startsWith('/* ahead */')),
    report,
  ).toBe(true)
  expect(waited(tallies.runSql) / TRANSFERS, report).toBeLessThanOrEqual(21.5)

  await t.app.services.settlement.watcher.scanNow()
  await t.drain()
  await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
})
