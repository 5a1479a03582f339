// Deposits end to end on the real dev chain: coins sent from outside credited exactly once by the
// watcher (also across a restart). Everything runs twice: with the embedded devnet, and with the
// production rpc adapter reaching a standalone devnet over HTTP JSON-RPC (outside keys then send
// through that devnet directly).
import { sql } from 'kysely'
import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { Ledger } from '../../src/modules/ledger/service.ts'
import { DepositWatcher } from '../../src/modules/settlement/watcher/job.ts'
import { TransactionService } from '../../src/modules/transactions/service.ts'
import type { TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { type ChainModeApp, type DevChain, describeChainModes, openChainModeApp } from './chain-mode.ts'
import { AVAX, fundedOutsider, USDC, walletFlows } from './support.ts'

let t: TestApp
let opened: ChainModeApp
/** the dev chain outside keys send through (the app's own, or the one its rpc adapter reaches) */
let node: DevChain
let outsider: { address: Hex; privateKey: Hex }
const { send, wallet, transactions, addressOf, expectConsistent } = walletFlows(() => ({ t, node }))

describeChainModes(
  {
    async setup(c) {
      opened = c
      t = c.t
      node = c.node
      outsider = await fundedOutsider(node)
    },
  },
  (mode) => {
    describe('deposits', () => {
      it('credits native coin and tokens sent from outside exactly once', async () => {
        const user = await createUser(t)
        const address = await addressOf(user)
        const native = await send(outsider.privateKey, 'avax', address, (3n * AVAX) / 2n)
        const token = await send(outsider.privateKey, 'usdc', address, 25_500_000n)
        expect(native.status).toBe('success')
        expect(token.status).toBe('success')

        // Nothing until the watcher has seen it.
        expect((await wallet(user)).totalBalance).toBe(0)
        const scan = await t.app.services.settlement.watcher.scanNow()
        expect(scan.leader).toBe(true)
        expect(scan.applied).toBeGreaterThanOrEqual(2)
        await t.app.services.settlement.watcher.scanNow()
        await t.drain()

        const data = await wallet(user)
        expect(data.wallets.find((w: { id: string }) => w.id === 'avax')).toMatchObject({
          amount: '1.500000',
          usdValue: 37.5,
        })
        expect(data.wallets.find((w: { id: string }) => w.id === 'usdc')).toMatchObject({
          amount: '25.500000',
          usdValue: 25.5,
        })
        expect(data.totalBalance).toBe(63)
        expect(data.value).toBe(63)
        const one = await t.req({ method: 'GET', url: '/v1/wallet/coin/avax', token: user.token })
        expect(one.json().data).toMatchObject({ coin: 'AVAX', amount: 1.5, usdValue: 37.5 })

        const list = await transactions(user)
        expect(list).toMatchObject({ page: 1, limit: 12, pages: 1, total: 2 })
        expect(list.transactions).toHaveLength(2)
        const deposit = list.transactions.find((x: { currency: string }) => x.currency === 'usdc')
        const chainRecord = await t.app.services.coins.chain()
        const usdc = await t.app.services.coins.get('usdc')
        expect(deposit).toEqual({
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          owner: user.id,
          amount: 25.5,
          coin: usdc.record,
          chain: chainRecord._id,
          currency: 'usdc',
          usdValue: 25.5,
          rate: '1',
          description: expect.stringContaining('25.5 USDC'),
          tx: expect.any(String),
          type: 'deposit',
          method: 'transfer',
          status: 'completed',
          isFee: false,
          isPlatformFee: false,
          responseData: expect.any(String),
          createdAt: expect.any(String),
          updatedAt: expect.any(String),
          __v: 0,
        })
        expect(typeof deposit.coin.order).toBe('number')
        expect(JSON.parse(deposit.tx)).toEqual({
          senderAddress: outsider.address.toLowerCase(),
          receiverAddress: address.toLowerCase(),
          asset: 'USDC',
          amount: '25.5',
        })
        const receipt = JSON.parse(deposit.responseData)
        expect(receipt).toMatchObject({
          transactionHash: token.hash,
          blockNumber: token.blockNumber.toString(),
          status: 'success',
          gasUsed: expect.any(String),
        })
        expect(receipt.logs.length).toBeGreaterThan(0)

        const got = await t.req({ method: 'GET', url: `/v1/transaction/${deposit._id}`, token: user.token })
        expect(got.statusCode).toBe(200)
        expect(got.json().data).toEqual(deposit)
        await expectConsistent()
      })

      it('counts every deposit once across a watcher restart mid-way', async () => {
        const user = await createUser(t)
        const address = await addressOf(user)
        await t.app.services.settlement.watcher.scanNow()
        for (let i = 1n; i <= 3n; i++) await send(outsider.privateKey, 'usdc', address, i * USDC)

        // Process one block, then "restart": a new watcher over the same database and chain (over a
        // new connection in rpc mode).
        await t.app.services.settlement.watcher.scanNow({ maxBlocks: 1 })
        const s = t.app.services
        const clock = t.clock
        const ledger = new Ledger({ clock })
        const reconnected = await opened.reconnect()
        const restarted = new DepositWatcher({
          database: t.database,
          chain: reconnected.chain,
          clock,
          log: t.app.log as never,
          jobs: s.jobs,
          halts: s.settlement.halts,
          ledger,
          transactions: new TransactionService({
            db: t.database.db,
            clock,
            chain: reconnected.chain,
            coins: s.coins,
            rates: s.rates,
          }),
          confirmations: t.config.confirmations,
        })
        try {
          await restarted.scanNow()
          await restarted.scanNow()
        } finally {
          await reconnected.release()
        }
        // The worker's periodic job scans again too.
        t.clock.advance(10_000)
        await t.drain()
        await s.settlement.watcher.scanNow()

        const data = await wallet(user)
        expect(data.wallets.find((w: { id: string }) => w.id === 'usdc').amount).toBe('6.000000')
        const list = await transactions(user, '?type=deposit&coin=usdc')
        expect(list.total).toBe(3)
        expect(list.transactions.map((x: { amount: number }) => x.amount)).toEqual([3, 2, 1])
        await expectConsistent()
      })

      it('waits for CONFIRMATIONS blocks before crediting', async () => {
        const other = await openChainModeApp(mode, { env: { CONFIRMATIONS: '3' } })
        try {
          const t2 = other.t
          const user = await createUser(t2)
          const w = await t2.req({ method: 'GET', url: '/v1/wallet', token: user.token })
          const address = w.json().data.wallets[0].address
          const c = other.node
          const payer = c.devnet.accounts[1]!
          await c.devnet.fund(payer.address, 'usdc', 100n * USDC)
          const signed = await c.signTransfer(payer.privateKey, {
            coin: 'usdc',
            to: address,
            amount: 7n * USDC,
            nonce: await c.getNonce(payer.address, 'pending'),
          })
          await c.broadcast(signed.raw)
          await c.waitForReceipt(signed.hash)
          await t2.app.services.settlement.watcher.scanNow()
          expect(await t2.app.services.ledger.balance(t2.database.db, 'user', user.id, 'usdc')).toBe(0n)
          await c.devnet.mine(1)
          await t2.app.services.settlement.watcher.scanNow()
          expect(await t2.app.services.ledger.balance(t2.database.db, 'user', user.id, 'usdc')).toBe(0n)
          await c.devnet.mine(1)
          await t2.app.services.settlement.watcher.scanNow()
          expect(await t2.app.services.ledger.balance(t2.database.db, 'user', user.id, 'usdc')).toBe(
            7n * USDC,
          )
          await expectLedgerConsistent(t2.database.db, { chain: t2.app.services.chain })
        } finally {
          await other.close()
        }
      })

      it('credits escrow addresses and reports the deposit once (deposit.credited job)', async () => {
        const s = t.app.services
        const escrowId = 'e'.repeat(24)
        const key = await t.database.db.transaction().execute((tx) => s.keys.ensure(tx, 'escrow', escrowId))
        await send(outsider.privateKey, 'usdc', key.address, 42n * USDC)
        await s.settlement.watcher.scanNow()
        await s.settlement.watcher.scanNow()
        const reports = await t.database.db
          .selectFrom('jobs')
          .select('payload')
          .where('kind', '=', 'deposit.credited')
          .where(sql<boolean>`payload->>'ownerId' = ${escrowId}`)
          .execute()
        expect(reports.map((r) => r.payload)).toEqual([
          expect.objectContaining({
            ownerKind: 'escrow',
            ownerId: escrowId,
            coin: 'usdc',
            amount: (42n * USDC).toString(),
            address: key.address,
          }),
        ])
        expect(await s.ledger.balance(t.database.db, 'escrow', escrowId, 'usdc')).toBe(42n * USDC)
        await expectConsistent()
      })

      it('does not take a transfer the platform signed for an external withdrawal', async () => {
        const s = t.app.services
        const user = await createUser(t)
        const address = await addressOf(user)
        await send(outsider.privateKey, 'avax', address, AVAX)
        await s.settlement.watcher.scanNow()
        // The platform pays out 0.25 AVAX from the user's address and books it itself.
        const pk = await s.keys.privateKey(t.database.db, address)
        const nonce = await s.chain.getNonce(address, 'pending')
        const signed = await s.chain.signTransfer(pk, {
          coin: 'avax',
          to: outsider.address,
          amount: AVAX / 4n,
          nonce,
        })
        await t.database.db.transaction().execute(async (tx) => {
          await s.settlement.watcher.registerOwn(tx, {
            txHash: signed.hash,
            from: address,
            purpose: 'test.payout',
          })
        })
        await s.chain.broadcast(signed.raw)
        const receipt = await s.chain.waitForReceipt(signed.hash)
        await s.settlement.watcher.scanNow()
        const list = await transactions(user)
        expect(list.transactions.filter((x: { type: string }) => x.type === 'withdrawal')).toEqual([])
        // The sender's own booking: value and gas out of the user's wallet.
        await t.database.db.transaction().execute(async (tx) => {
          const acct = await s.ledger.ensureAccount(tx, 'user', user.id, 'avax')
          const clearing = await s.ledger.ensureAccount(tx, 'chain', String(s.chain.chainId), 'avax')
          const spent = AVAX / 4n + receipt.fee
          await s.ledger.transfer(tx, {
            key: `test.payout:${signed.hash}`,
            coin: 'avax',
            legs: [
              { account: acct, amount: -spent },
              { account: clearing, amount: spent },
            ],
          })
        })
        await expectConsistent()
      })
    })
  },
)
