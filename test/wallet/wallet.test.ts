// Wallets end to end on the real dev chain: keys at sign-up, deposits credited once by the
// watcher (also across a restart), the key export and transfers signed outside the platform.
// Everything runs twice: with the embedded devnet, and with the production rpc adapter reaching a
// standalone devnet over HTTP JSON-RPC (outside keys then send through that devnet directly).
import { sql } from 'kysely'
import * as OTPAuth from 'otpauth'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { DepositWatcher } from '../../src/modules/settlement/watcher/job.ts'
import { TransactionService } from '../../src/modules/transactions/service.ts'
import { Ledger } from '../../src/modules/wallet/ledger.ts'
import type { TestApp } from '../helpers/app.ts'
import { createUser, lastCode, type TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { type ChainModeApp, type DevChain, describeChainModes, openChainModeApp } from './chain-mode.ts'

let t: TestApp
let opened: ChainModeApp
/** the dev chain outside keys send through (the app's own, or the one its rpc adapter reaches) */
let node: DevChain
let outsider: { address: Hex; privateKey: Hex }
const AVAX = 10n ** 18n
const USDC = 10n ** 6n

/** the app's chain adapter (devnet or rpc) */
const chain = () => t.app.services.chain

function expectError(res: { statusCode: number; json(): any; body: string }, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.json()).toMatchObject({ status: 'error', data: { code } })
}

/** Signs with `privateKey` and waits for the receipt: a transfer made outside the platform. */
async function send(privateKey: Hex, coin: string, to: string, amount: bigint) {
  const c = node
  const from = c.addressOf(privateKey)
  const nonce = await c.getNonce(from, 'pending')
  const signed = await c.signTransfer(privateKey, { coin, to, amount, nonce })
  await c.broadcast(signed.raw)
  return c.waitForReceipt(signed.hash)
}

async function wallet(user: TestUser) {
  const res = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

async function transactions(user: TestUser, query = '') {
  const res = await t.req({ method: 'GET', url: `/v1/transaction${query}`, token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

/** The two-factor email endpoint mails the code that confirms the export. */
async function requestCode(user: TestUser) {
  const res = await t.req({ method: 'POST', url: '/v1/account/2fa/email', payload: {}, token: user.token })
  expect(res.statusCode, res.body).toBe(200)
}

async function addressOf(user: TestUser): Promise<string> {
  return (await wallet(user)).wallets[0].address
}

async function expectConsistent() {
  await t.app.services.wallets.scanNow()
  await expectLedgerConsistent(t.database.db, { chain: chain() })
}

describeChainModes(
  {
    async setup(c) {
      opened = c
      t = c.t
      node = c.node
      outsider = node.devnet.accounts[0]!
      await node.devnet.fund(outsider.address, 'usdc', 1_000_000n * USDC)
    },
  },
  (mode) => {
    it('runs the app on the chain adapter of this mode', () => {
      expect(chain().kind).toBe(mode)
      // In rpc mode the app reaches the chain only over HTTP: it has no devnet controls.
      expect(chain().devnet === undefined).toBe(mode === 'rpc')
    })

    describe('wallet at sign-up (#18, #19)', () => {
      it('gives a new user one key and a zero wallet per active coin', async () => {
        const user = await createUser(t)
        const data = await wallet(user)
        const coins = await t.app.services.coins.list()
        expect(data).toEqual({
          totalBalance: 0,
          value: 0,
          wallets: coins.map((c) => ({
            id: c.reference,
            amount: '0.000000',
            usdValue: 0,
            address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
            coin: c.symbol,
            icon: c.icon,
          })),
        })
        expect(new Set(data.wallets.map((w: { address: string }) => w.address)).size).toBe(1)
        const key = await t.database.db
          .selectFrom('walletKeys')
          .selectAll()
          .where('ownerKind', '=', 'user')
          .where('ownerId', '=', user.id)
          .executeTakeFirstOrThrow()
        expect(key.address).toBe(data.wallets[0].address.toLowerCase())
        expect(key.sealedKey).toMatch(/^v1\.k1\./)
        const me = await t.req({ method: 'GET', url: '/v1/account', token: user.token })
        expect(me.json().data.walletGenerated).toBe(true)
      })

      it('gives a web3 sign-up its custodial wallet too', async () => {
        const acct = privateKeyToAccount(generatePrivateKey())
        const req = await t.req({
          method: 'POST',
          url: '/v1/auth/web3/request',
          payload: { account: acct.address },
        })
        expect(req.statusCode, req.body).toBe(200)
        const { message, tempToken } = req.json().data
        const signedMessage = await acct.signMessage({ message })
        const val = await t.req({
          method: 'POST',
          url: '/v1/auth/web3/validate',
          payload: { signedMessage, tempToken: tempToken.token },
        })
        expect(val.statusCode, val.body).toBe(202)
        const db = t.database.db
        const user = await db
          .selectFrom('users')
          .select(['id', 'walletGenerated'])
          .where('web3Address', 'ilike', acct.address)
          .executeTakeFirstOrThrow()
        expect(user.walletGenerated).toBe(true)
        const key = await db
          .selectFrom('walletKeys')
          .selectAll()
          .where('ownerId', '=', user.id)
          .executeTakeFirstOrThrow()
        // The custodial address is the platform's own key, not the user's sign-in wallet.
        expect(key.address).not.toBe(acct.address.toLowerCase())
        const accounts = await db
          .selectFrom('ledgerAccounts')
          .select('coin')
          .where('ownerId', '=', user.id)
          .execute()
        expect(accounts.map((a) => a.coin).sort()).toEqual(
          (await t.app.services.coins.list()).map((c) => c.reference).sort(),
        )
      })

      it('creates the wallet on first read for an account made before wallets existed', async () => {
        const user = await createUser(t)
        const db = t.database.db
        const accounts = await db
          .selectFrom('ledgerAccounts')
          .select('id')
          .where('ownerId', '=', user.id)
          .execute()
        await db.deleteFrom('ledgerAccounts').where('ownerId', '=', user.id).execute()
        await db.deleteFrom('walletKeys').where('ownerId', '=', user.id).execute()
        await db.updateTable('users').set({ walletGenerated: false }).where('id', '=', user.id).execute()
        expect(accounts.length).toBeGreaterThan(0)
        const [a, b] = await Promise.all([wallet(user), wallet(user)])
        expect(a.wallets[0].address).toBe(b.wallets[0].address)
        expect(
          await db.selectFrom('walletKeys').select('id').where('ownerId', '=', user.id).execute(),
        ).toHaveLength(1)
        const row = await db
          .selectFrom('users')
          .select('walletGenerated')
          .where('id', '=', user.id)
          .executeTakeFirst()
        expect(row?.walletGenerated).toBe(true)
      })

      it('shows one coin; an unknown coin reference is 400', async () => {
        const user = await createUser(t)
        const res = await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc', token: user.token })
        expect(res.statusCode, res.body).toBe(200)
        const coin = await t.app.services.coins.get('usdc')
        expect(res.json()).toEqual({
          status: 'success',
          message: expect.any(String),
          data: {
            _id: expect.stringMatching(/^[0-9a-f]{24}$/),
            coin: coin.symbol,
            amount: 0,
            usdValue: 0,
            icon: coin.icon,
          },
        })
        expectError(
          await t.req({ method: 'GET', url: '/v1/wallet/coin/nope', token: user.token }),
          400,
          'VALIDATION_ERROR',
        )
      })

      it('needs a bearer token', async () => {
        expectError(await t.req({ method: 'GET', url: '/v1/wallet' }), 401, 'UNAUTHENTICATED')
        expectError(await t.req({ method: 'GET', url: '/v1/wallet/coin/usdc' }), 401, 'UNAUTHENTICATED')
        expectError(
          await t.req({
            method: 'POST',
            url: '/v1/wallet/export-secret-key',
            payload: { code: '123456', password: 'x' },
          }),
          401,
          'UNAUTHENTICATED',
        )
        expectError(
          await t.req({ method: 'GET', url: '/v1/wallet', token: 'not-a-token' }),
          401,
          'UNAUTHENTICATED',
        )
      })
    })

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
        const scan = await t.app.services.wallets.scanNow()
        expect(scan.leader).toBe(true)
        expect(scan.applied).toBeGreaterThanOrEqual(2)
        await t.app.services.wallets.scanNow()
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
        await t.app.services.wallets.scanNow()
        for (let i = 1n; i <= 3n; i++) await send(outsider.privateKey, 'usdc', address, i * USDC)

        // Process one block, then "restart": a new watcher over the same database and chain (over a
        // new connection in rpc mode).
        await t.app.services.wallets.scanNow({ maxBlocks: 1 })
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
        await s.wallets.scanNow()

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
          await t2.app.services.wallets.scanNow()
          expect(await t2.app.services.ledger.balance(t2.database.db, 'user', user.id, 'usdc')).toBe(0n)
          await c.devnet.mine(1)
          await t2.app.services.wallets.scanNow()
          expect(await t2.app.services.ledger.balance(t2.database.db, 'user', user.id, 'usdc')).toBe(0n)
          await c.devnet.mine(1)
          await t2.app.services.wallets.scanNow()
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
        const key = await t.database.db
          .transaction()
          .execute((tx) => s.wallets.createKey(tx, 'escrow', escrowId))
        await send(outsider.privateKey, 'usdc', key.address, 42n * USDC)
        await s.wallets.scanNow()
        await s.wallets.scanNow()
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
        await s.wallets.scanNow()
        // The platform pays out 0.25 AVAX from the user's address and books it itself.
        const pk = await s.wallets.privateKey(t.database.db, address)
        const nonce = await s.chain.getNonce(address, 'pending')
        const signed = await s.chain.signTransfer(pk, {
          coin: 'avax',
          to: outsider.address,
          amount: AVAX / 4n,
          nonce,
        })
        await t.database.db.transaction().execute(async (tx) => {
          await s.wallets.registerOutgoing(tx, { txHash: signed.hash, from: address, purpose: 'test.payout' })
        })
        await s.chain.broadcast(signed.raw)
        const receipt = await s.chain.waitForReceipt(signed.hash)
        await s.wallets.scanNow()
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

    describe('gas top-ups', () => {
      it('credits a registered top-up to the platform account given, not to the user', async () => {
        const s = t.app.services
        const user = await createUser(t)
        const address = await addressOf(user)
        const native = s.chain.coins.find((c) => !c.isToken)!.reference
        const parked = await s.ledger.ensureAccount(t.database.db, 'treasury', address.toLowerCase(), native)
        const signed = await s.chain.gasWallet.signTransfer({
          coin: native,
          to: address,
          amount: AVAX / 100n,
        })
        await s.wallets.registerOutgoing(t.database.db, {
          txHash: signed.hash,
          from: s.chain.gasWallet.address,
          purpose: 'gas.topup',
          creditAccountId: parked,
        })
        await s.chain.broadcast(signed.raw)
        await s.chain.waitForReceipt(signed.hash)
        await s.wallets.scanNow()
        expect(await s.ledger.balance(t.database.db, 'user', user.id, native)).toBe(0n)
        expect(await s.ledger.balance(t.database.db, 'treasury', address.toLowerCase(), native)).toBe(
          AVAX / 100n,
        )
        expect((await transactions(user)).total).toBe(0)
        await expectConsistent()
      })
    })

    describe('key export (#20)', () => {
      it('exports the key with password and emailed code, then books transfers signed outside', async () => {
        const s = t.app.services
        const user = await createUser(t)
        const address = await addressOf(user)
        await send(outsider.privateKey, 'avax', address, 2n * AVAX)
        await send(outsider.privateKey, 'usdc', address, 100n * USDC)
        await s.wallets.scanNow()

        const url = '/v1/wallet/export-secret-key'
        const post = (payload: unknown) =>
          t.req({ method: 'POST', url, payload: payload as object, token: user.token })
        // No code requested yet.
        expectError(await post({ code: '123456', password: user.password }), 400, 'INVALID_CODE')
        await requestCode(user)
        const code = await lastCode(t, user.email)
        expectError(await post({ code, password: 'Wrong-passw0rd' }), 401, 'INVALID_CREDENTIALS')
        const wrong = code === '000000' ? '111111' : '000000'
        expectError(await post({ code: wrong, password: user.password }), 400, 'INVALID_CODE')
        expectError(await post({ code: '12345', password: user.password }), 400, 'VALIDATION_ERROR')
        expectError(await post({ code, password: user.password, extra: 1 }), 400, 'VALIDATION_ERROR')
        expectError(await post({ code: 123456, password: user.password }), 400, 'VALIDATION_ERROR')

        const res = await post({ code, password: user.password })
        expect(res.statusCode, res.body).toBe(200)
        const { secretKey, walletAddress } = res.json().data
        expect(Object.keys(res.json().data).sort()).toEqual(['secretKey', 'walletAddress'])
        expect(secretKey).toMatch(/^0x[0-9a-f]{64}$/)
        expect(privateKeyToAddress(secretKey)).toBe(walletAddress)
        expect(walletAddress).toBe(address)
        // The code is single use.
        expectError(await post({ code, password: user.password }), 400, 'INVALID_CODE')

        const audit = await t.database.db
          .selectFrom('auditLog')
          .selectAll()
          .where('userId', '=', user.id)
          .where('action', '=', 'wallet.export_key')
          .execute()
        expect(audit).toHaveLength(1)
        expect(JSON.stringify(audit)).not.toContain(secretKey.slice(2))
        const key = await t.database.db
          .selectFrom('walletKeys')
          .select('exportedAt')
          .where('ownerId', '=', user.id)
          .executeTakeFirstOrThrow()
        expect(key.exportedAt).toBeInstanceOf(Date)

        // The user moves funds out with the exported key, directly on chain.
        const out1 = await send(secretKey, 'usdc', outsider.address, 40n * USDC)
        const out2 = await send(secretKey, 'avax', outsider.address, AVAX / 2n)
        await s.wallets.scanNow()
        await s.wallets.scanNow()

        const list = await transactions(user, '?type=withdrawal&limit=100')
        const external = list.transactions.filter((x: { isFee: boolean }) => !x.isFee)
        const fees = list.transactions.filter((x: { isFee: boolean }) => x.isFee)
        expect(external).toHaveLength(2)
        expect(fees).toHaveLength(2)
        for (const x of list.transactions)
          expect(x).toMatchObject({ type: 'withdrawal', isExternal: true, status: 'completed' })
        expect(external.find((x: { currency: string }) => x.currency === 'usdc')).toMatchObject({
          amount: 40,
          usdValue: 40,
        })
        expect(external.find((x: { currency: string }) => x.currency === 'avax')).toMatchObject({
          amount: 0.5,
          usdValue: 12.5,
        })
        const totalFee = out1.fee + out2.fee
        const avaxLeft = 2n * AVAX - AVAX / 2n - totalFee
        expect(await s.ledger.balance(t.database.db, 'user', user.id, 'avax')).toBe(avaxLeft)
        expect(await s.ledger.balance(t.database.db, 'user', user.id, 'usdc')).toBe(60n * USDC)
        expect((await wallet(user)).wallets.find((w: { id: string }) => w.id === 'usdc').amount).toBe(
          '60.000000',
        )
        await expectConsistent()

        // No private key in plaintext anywhere in the database.
        const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(t.database.db)
        expect(tables.rows.length).toBeGreaterThan(5)
        const hex = secretKey.slice(2).toLowerCase()
        for (const { name } of tables.rows) {
          const rows = await sql.raw(`select * from "${name}"`).execute(t.database.db)
          const dump = JSON.stringify(rows.rows, (_k, v) =>
            typeof v === 'bigint' ? v.toString() : v,
          ).toLowerCase()
          expect(dump.includes(hex), `table ${name} holds the key in plaintext`).toBe(false)
          expect(dump.includes(Buffer.from(hex, 'hex').toString('base64').toLowerCase())).toBe(false)
        }
        // And in no response other than the export.
        const views = await Promise.all([
          t.req({ method: 'GET', url: '/v1/wallet', token: user.token }),
          t.req({ method: 'GET', url: '/v1/wallet/coin/avax', token: user.token }),
          t.req({ method: 'GET', url: '/v1/transaction?limit=100', token: user.token }),
          t.req({ method: 'GET', url: '/v1/account', token: user.token }),
        ])
        for (const v of views) expect(v.body.toLowerCase()).not.toContain(hex)
      })

      it('takes the authenticator code when google_auth two-factor is on', async () => {
        const user = await createUser(t)
        const init = await t.req({
          method: 'POST',
          url: '/v1/account/initiate/2fa',
          payload: { type: 'google_auth' },
          token: user.token,
        })
        expect(init.statusCode, init.body).toBe(202)
        const totp = new OTPAuth.TOTP({
          secret: OTPAuth.Secret.fromBase32(init.json().data.secret),
          digits: 6,
          period: 30,
        })
        const now = () => t.clock.now().getTime()
        const act = await t.req({
          method: 'POST',
          url: '/v1/account/activate/2fa',
          payload: { code: totp.generate({ timestamp: now() }) },
          token: user.token,
        })
        expect(act.statusCode, act.body).toBe(200)
        t.clock.advance(31_000)
        const post = (code: string) =>
          t.req({
            method: 'POST',
            url: '/v1/wallet/export-secret-key',
            payload: { code, password: user.password },
            token: user.token,
          })
        const current = totp.generate({ timestamp: now() })
        expectError(await post(current === '000000' ? '111111' : '000000'), 400, 'INVALID_CODE')
        const res = await post(current)
        expect(res.statusCode, res.body).toBe(200)
        expect(privateKeyToAddress(res.json().data.secretKey)).toBe(res.json().data.walletAddress)
        // The same step is not accepted twice.
        expectError(await post(current), 400, 'INVALID_CODE')
      })

      it('kills the code after five wrong tries', async () => {
        const user = await createUser(t)
        await requestCode(user)
        const code = await lastCode(t, user.email)
        const wrong = code === '000000' ? '111111' : '000000'
        const post = (c: string) =>
          t.req({
            method: 'POST',
            url: '/v1/wallet/export-secret-key',
            payload: { code: c, password: user.password },
            token: user.token,
          })
        for (let i = 0; i < 4; i++) expectError(await post(wrong), 400, 'INVALID_CODE')
        expectError(await post(wrong), 429, 'TOO_MANY_ATTEMPTS')
        // The code is dead: even the right one no longer works.
        expect((await post(code)).statusCode).not.toBe(200)
      })
    })
  },
)
