// The deposit watcher's leadership, overlap safety and deep-reorg halt; the export's rate limit.
// Run with the embedded devnet and with the rpc adapter over HTTP JSON-RPC (see chain-mode.ts).

import { sql } from 'kysely'
import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { DepositWatcher } from '../../src/modules/settlement/watcher/job.ts'
import { TransactionService } from '../../src/modules/transactions/service.ts'
import type { TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { type DevChain, describeChainModes } from './chain-mode.ts'

let t: TestApp
/** the dev chain outside keys send through (the app's own, or the one its rpc adapter reaches) */
let node: DevChain
let payer: { address: Hex; privateKey: Hex }
const USDC = 10n ** 6n

function newWatcher() {
  const s = t.app.services
  return new DepositWatcher({
    database: t.database,
    chain: s.chain,
    clock: t.clock,
    log: t.app.log as never,
    jobs: s.jobs,
    halts: s.settlement.halts,
    ledger: new Ledger({ clock: t.clock }),
    transactions: new TransactionService({
      db: t.database.db,
      clock: t.clock,
      chain: s.chain,
      coins: s.coins,
      rates: s.rates,
    }),
    confirmations: t.config.confirmations,
  })
}

async function pay(to: string, amount: bigint) {
  const c = node
  const signed = await c.signTransfer(payer.privateKey, {
    coin: 'usdc',
    to,
    amount,
    nonce: await c.getNonce(payer.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  return c.waitForReceipt(signed.hash)
}

describeChainModes(
  {
    env: { RATE_LIMIT_AUTH_PER_IP: '5' },
    async setup(c) {
      t = c.t
      node = c.node
      payer = node.devnet.accounts[2]!
      await node.devnet.fund(payer.address, 'usdc', 1_000n * USDC)
    },
  },
  () => {
    describe('deposit watcher', () => {
      it('applies each range once when several watchers scan at the same time', async () => {
        const user = await createUser(t)
        const address = (await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })).json().data
          .wallets[0].address
        for (let i = 0; i < 3; i++) await pay(address, 5n * USDC)
        const watchers = [newWatcher(), newWatcher(), newWatcher()]
        const results = await Promise.all([
          ...watchers.map((w) => w.scanNow()),
          t.app.services.settlement.watcher.scanNow(),
        ])
        expect(results.some((r) => r.leader)).toBe(true)
        await t.app.services.settlement.watcher.scanNow()
        expect(await t.app.services.ledger.balance(t.database.db, 'user', user.id, 'usdc')).toBe(15n * USDC)
        const list = (await t.req({ method: 'GET', url: '/v1/transaction', token: user.token })).json().data
        expect(list.total).toBe(3)
        await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
      })

      it('is run by the worker job without anyone calling it', async () => {
        const user = await createUser(t)
        const address = (await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })).json().data
          .wallets[0].address
        await pay(address, 3n * USDC)
        t.clock.advance(5_000)
        // Real time moves on during the run: compare the renewal with when the run started.
        const ranFrom = t.clock.now().getTime()
        await t.drain()
        expect(await t.app.services.ledger.balance(t.database.db, 'user', user.id, 'usdc')).toBe(3n * USDC)
        // It renewed itself for a later time slot.
        const next = await t.database.db
          .selectFrom('jobs')
          .select(['runAt', 'status'])
          .where('kind', '=', 'wallet.watch')
          .where('status', '=', 'queued')
          .execute()
        expect(next).toHaveLength(1)
        expect(next[0]!.runAt.getTime()).toBeGreaterThan(ranFrom)
      })

      it('lets one leader per chain scan; the others step aside', async () => {
        const watcher = newWatcher()
        if (t.database.kind === 'pglite') {
          // The embedded database belongs to one process: its scans are serialised in memory.
          const [a, b] = await Promise.all([watcher.scanNow(), watcher.scanNow()])
          expect(a.leader && b.leader).toBe(true)
          return
        }
        const chainId = t.app.services.chain.chainId
        await t.database.db.connection().execute(async (conn) => {
          await sql`select pg_advisory_lock(${0x57414c4c}, ${chainId})`.execute(conn)
          try {
            expect(await watcher.scanNow()).toEqual({ leader: false, cursor: null, applied: 0 })
          } finally {
            await sql`select pg_advisory_unlock(${0x57414c4c}, ${chainId})`.execute(conn)
          }
        })
        expect((await watcher.scanNow()).leader).toBe(true)
      })

      it('halts every coin of the chain on a replaced block at the cursor, until an operator resumes them', async () => {
        const s = t.app.services
        const db = t.database.db
        const chainId = String(s.chain.chainId)
        await s.settlement.watcher.scanNow()
        const before = await db
          .selectFrom('chainCursors')
          .selectAll()
          .where('chainId', '=', chainId)
          .executeTakeFirstOrThrow()
        await db
          .updateTable('chainCursors')
          .set({ blockHash: `0x${'ab'.repeat(32)}` })
          .where('chainId', '=', chainId)
          .execute()
        await s.settlement.watcher.scanNow()
        const audit = await db
          .selectFrom('auditLog')
          .selectAll()
          .where('action', '=', 'chain.reorg')
          .execute()
        expect(audit).toHaveLength(1)
        expect(audit[0]!.meta).toMatchObject({ chainId: Number(chainId), block: String(before.blockNumber) })
        const after = await db
          .selectFrom('chainCursors')
          .selectAll()
          .where('chainId', '=', chainId)
          .executeTakeFirstOrThrow()
        // It follows the chain as it now is...
        expect(after.blockHash).toBe(before.blockHash)
        // ...with every coin halted, and says so.
        const coins = s.chain.coins.map((c) => c.reference).sort()
        expect([...(await s.settlement.halts.haltedCoins())].sort()).toEqual(coins)
        const ready = await s.settlement.readiness()
        expect(ready.haltedCoins.map((h) => h.coin).sort()).toEqual(coins)
        expect(ready.haltedCoins.every((h) => h.reason === 'reorg')).toBe(true)

        // A deposit meanwhile is recorded but not credited.
        const user = await createUser(t)
        const address = (await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })).json().data
          .wallets[0].address
        await pay(address, 2n * USDC)
        await s.settlement.watcher.scanNow()
        expect(await s.ledger.balance(db, 'user', user.id, 'usdc')).toBe(0n)
        const parked = await db
          .selectFrom('chainEvents')
          .select(['held', 'transferId'])
          .where('address', '=', address.toLowerCase())
          .execute()
        expect(parked).toHaveLength(1)
        expect(parked[0]).toMatchObject({ transferId: null, held: expect.any(Object) })
        await expect(s.settlement.halts.assertNotHalted('usdc')).rejects.toMatchObject({
          code: 'COIN_HALTED',
        })

        // Resumed by an operator, the parked deposit is credited once.
        for (const coin of coins)
          await s.settlement.halts.resume(coin, 'operator-1', 'ledger checked by hand')
        expect((await s.settlement.readiness()).haltedCoins).toEqual([])
        await s.settlement.watcher.scanNow()
        await s.settlement.watcher.scanNow()
        expect(await s.ledger.balance(db, 'user', user.id, 'usdc')).toBe(2n * USDC)
        const halts = await db.selectFrom('coinHalts').selectAll().where('reason', '=', 'reorg').execute()
        expect(halts).toHaveLength(coins.length)
        expect(halts.every((h) => h.clearedBy === 'operator-1' && h.clearedAt instanceof Date)).toBe(true)
        await expectLedgerConsistent(db, { chain: s.chain })
      })
    })

    describe('key export rate limit', () => {
      it('answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
        const user = await createUser(t)
        const post = () =>
          t.req({
            method: 'POST',
            url: '/v1/wallet/export-secret-key',
            payload: { code: '123456', password: 'Wrong-passw0rd' },
            token: user.token,
          })
        for (let i = 0; i < 5; i++) expect((await post()).statusCode).toBe(401)
        const limited = await post()
        expect(limited.statusCode).toBe(429)
        expect(limited.json()).toMatchObject({ status: 'error', data: { code: 'RATE_LIMITED' } })
        expect(limited.headers['retry-after']).toBeTruthy()
      })
    })
  },
)
