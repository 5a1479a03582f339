// Wallets end to end on the real dev chain: keys at sign-up, gas top-ups, the key export and
// transfers signed outside the platform (deposits are in deposits.test.ts). Everything runs twice:
// with the embedded devnet, and with the production rpc adapter reaching a standalone devnet over
// HTTP JSON-RPC (outside keys then send through that devnet directly).
import { sql } from 'kysely'
import * as OTPAuth from 'otpauth'
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import { expectError } from '../helpers/errors.ts'
import { createUser, lastCode } from '../helpers/factories.ts'
import { type DevChain, describeChainModes } from './chain-mode.ts'
import { AVAX, fundedOutsider, USDC, walletFlows } from './support.ts'

let t: TestApp
/** the dev chain outside keys send through (the app's own, or the one its rpc adapter reaches) */
let node: DevChain
let outsider: { address: Hex; privateKey: Hex }
const { send, wallet, transactions, requestCode, addressOf, expectConsistent } = walletFlows(() => ({
  t,
  node,
}))

/** the app's chain adapter (devnet or rpc) */
const chain = () => t.app.services.chain

describeChainModes(
  {
    async setup(c) {
      t = c.t
      node = c.node
      outsider = await fundedOutsider(node)
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
        await s.settlement.watcher.registerOwn(t.database.db, {
          txHash: signed.hash,
          from: s.chain.gasWallet.address,
          purpose: 'gas.topup',
          creditAccountId: parked,
        })
        await s.chain.broadcast(signed.raw)
        await s.chain.waitForReceipt(signed.hash)
        await s.settlement.watcher.scanNow()
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
        await s.settlement.watcher.scanNow()

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
        await s.settlement.watcher.scanNow()
        await s.settlement.watcher.scanNow()

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
