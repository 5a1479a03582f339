// The devnet journal's compaction in the app (both drivers): a deposit credited before a
// compaction, a withdrawal whose transaction was mined but whose receipt the sender has not read
// yet (the compaction stays below it), then a restart on the compacted journal: the withdrawal
// settles with its receipt, a new deposit is credited once, and the watcher sees no reorganisation.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { isState } from '../../src/platform/chain/devnet-compaction.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { openTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { sendFrom } from '../helpers/money.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
} from '../withdrawals/helpers.ts'

type Database = Awaited<ReturnType<typeof openTestDatabase>>

async function start(database: Database, dataDir: string, clock: ManualClock): Promise<TestApp> {
  const config = loadConfig({ ...TEST_ENV, DATA_DIR: dataDir })
  const crash: TestApp['crash'] = { hook: undefined }
  const app: FastifyInstance = await buildApp({
    config,
    database,
    clock,
    logger: false,
    crashHook: (at, id) => crash.hook?.(at, id),
  })
  await app.ready()
  return {
    app,
    database,
    clock,
    config,
    crash,
    close: () => app.close(),
    drain: () => app.services.jobs.runUntilIdle(),
    req: ({ token, headers, ...rest }) =>
      app.inject({
        ...rest,
        headers: { ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      }),
  }
}

const reorgs = (t: TestApp) =>
  t.database.db.selectFrom('auditLog').select('id').where('action', '=', 'chain.reorg').execute()

describe('devnet journal compaction in the app', () => {
  it('a deposit and a withdrawal across a compaction and a restart', { timeout: 240_000 }, async () => {
    const database = await openTestDatabase()
    const dataDir = mkdtempSync(join(tmpdir(), 'wp-compaction-app-'))
    const clock = new ManualClock()
    try {
      const t1 = await start(database, dataDir, clock)
      const user = await createUser(t1)
      const address = await walletAddress(t1, user)
      await fundUser(t1, 2, user, 'avax', 2n * AVAX)
      expect(await balanceOf(t1, user.id, 'avax')).toBe(2n * AVAX)

      // a withdrawal whose transaction is mined, its sender stopped before it read the receipt
      const to = freshAddress()
      const res = await t1.req({
        method: 'POST',
        url: '/v1/withdrawals/',
        token: user.token,
        payload: { password: user.password, amount: 0.25, coin: 'avax', address: to },
      })
      expect(res.statusCode, res.body).toBe(200)
      const { outgoingId } = await database.db
        .selectFrom('withdrawals')
        .select('outgoingId')
        .where('id', '=', res.json().data.withdrawalId)
        .executeTakeFirstOrThrow()
      let crashed = false
      t1.crash.hook = (point, transferId) => {
        if (point === 'after-broadcast' && transferId === outgoingId && !crashed) {
          crashed = true
          throw new SimulatedCrash(point)
        }
      }
      for (let i = 0; i < 30 && !crashed; i++) {
        await t1.drain()
        if (!crashed) clock.advance(5_000)
      }
      expect(crashed).toBe(true)
      const chain1 = t1.app.services.chain
      const sent = await database.db
        .selectFrom('outgoingTransfers')
        .select(['txHash', 'status'])
        .where('id', '=', outgoingId!)
        .executeTakeFirstOrThrow()
      // broadcast and mined, still `signed`: the run's last transaction would have recorded the broadcast
      expect(sent.status).toBe('signed')
      const minedAt = (await chain1.getReceipt(sent.txHash as `0x${string}`))!.blockNumber
      // the watcher's cursor moves past that block
      await sendFrom(t1, chain1.devnet!.accounts[3]!, freshAddress(), 'avax', 1n)
      await t1.app.services.settlement.watcher.scanNow()
      const cursor = await database.db
        .selectFrom('chainCursors')
        .select('blockNumber')
        .executeTakeFirstOrThrow()
      expect(BigInt(cursor.blockNumber)).toBeGreaterThan(minedAt)

      // the compaction stops below the open transfer's block, not at the cursor
      expect(await chain1.devnet!.compact()).toEqual({ base: minedAt - 1n })
      const head = await chain1.blockNumber()
      t1.crash.hook = undefined
      await t1.close()

      let userOnChain = -1n
      const t2 = await start(database, dataDir, clock)
      try {
        const chain2 = t2.app.services.chain
        const journal = await database.db
          .selectFrom('devnetJournal')
          .select(['method', 'params'])
          .orderBy('seq')
          .execute()
        expect(isState(journal[0])).toBe(true)
        expect(await chain2.blockNumber()).toBe(head)
        // the withdrawal settles with the receipt of the transaction it sent, paid once
        await settleAll(t2)
        const done = await database.db
          .selectFrom('outgoingTransfers')
          .select(['txHash', 'status'])
          .where('id', '=', outgoingId!)
          .executeTakeFirstOrThrow()
        expect(done).toEqual({ txHash: sent.txHash, status: 'completed' })
        expect(await chain2.balanceOf(to, 'avax')).toBe(AVAX / 4n)
        // a deposit after the restart is credited once; no reorganisation was seen
        await fundUser(t2, 4, user, 'avax', AVAX)
        await t2.app.services.settlement.watcher.scanNow()
        expect(await balanceOf(t2, user.id, 'avax')).toBe(3n * AVAX - AVAX / 4n - AVAX / 1000n)
        const deposits = await database.db
          .selectFrom('chainEvents as e')
          .innerJoin('ledgerAccounts as a', 'a.id', 'e.accountId')
          .select(['e.txHash', 'e.amount'])
          .where('e.kind', '=', 'deposit')
          .where('e.address', '=', address.toLowerCase())
          .where('a.kind', '=', 'user')
          .orderBy('e.blockNumber')
          .execute()
        // the user's two payments, each once (the platform's gas top-up for the withdrawal is
        // credited to a platform account)
        expect(deposits.map((d) => String(d.amount))).toEqual([String(2n * AVAX), String(AVAX)])
        expect(await reorgs(t2)).toEqual([])
        await expectConsistent(t2)
        // with nothing open any more, the next compaction reaches the cursor
        const now = await database.db
          .selectFrom('chainCursors')
          .select('blockNumber')
          .executeTakeFirstOrThrow()
        expect(await chain2.devnet!.compact()).toEqual({ base: BigInt(now.blockNumber) })
        userOnChain = await chain2.balanceOf(address, 'avax')
      } finally {
        await t2.close()
      }
      // a third start on the twice-compacted journal: the same balances, still no reorganisation
      const t3 = await start(database, dataDir, clock)
      try {
        expect(await t3.app.services.chain.balanceOf(to, 'avax')).toBe(AVAX / 4n)
        expect(await t3.app.services.chain.balanceOf(address, 'avax')).toBe(userOnChain)
        await t3.app.services.settlement.watcher.scanNow()
        expect(await reorgs(t3)).toEqual([])
        await expectConsistent(t3)
      } finally {
        await t3.close()
      }
    } finally {
      await database.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
