// Shared helpers of the wallet suites that run on both chain adapters (wallet.test.ts,
// deposits.test.ts): the coins' base units, transfers signed outside the platform, and the
// requests and checks on the app of a test file.
import type { Hex } from 'viem'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import type { DevChain } from './chain-mode.ts'

export const AVAX = 10n ** 18n
export const USDC = 10n ** 6n

/** A dev account outside the platform, holding 1,000,000 USDC to send from. */
export async function fundedOutsider(node: DevChain) {
  const outsider = node.devnet.accounts[0]!
  await node.devnet.fund(outsider.address, 'usdc', 1_000_000n * USDC)
  return outsider
}

/** Wallet requests and checks on the app and dev chain `world()` answers when they are called. */
export function walletFlows(world: () => { t: TestApp; node: DevChain }) {
  /** Signs with `privateKey` and waits for the receipt: a transfer made outside the platform. */
  async function send(privateKey: Hex, coin: string, to: string, amount: bigint) {
    const c = world().node
    const from = c.addressOf(privateKey)
    const nonce = await c.getNonce(from, 'pending')
    const signed = await c.signTransfer(privateKey, { coin, to, amount, nonce })
    await c.broadcast(signed.raw)
    return c.waitForReceipt(signed.hash)
  }

  async function wallet(user: TestUser) {
    const res = await world().t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }

  async function transactions(user: TestUser, query = '') {
    const res = await world().t.req({ method: 'GET', url: `/v1/transaction${query}`, token: user.token })
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data
  }

  /** The two-factor email endpoint mails the code that confirms the export. */
  async function requestCode(user: TestUser) {
    const res = await world().t.req({
      method: 'POST',
      url: '/v1/account/2fa/email',
      payload: {},
      token: user.token,
    })
    expect(res.statusCode, res.body).toBe(200)
  }

  async function addressOf(user: TestUser): Promise<string> {
    return (await wallet(user)).wallets[0].address
  }

  async function expectConsistent() {
    const { t } = world()
    await t.app.services.settlement.watcher.scanNow()
    await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
  }

  return { send, wallet, transactions, requestCode, addressOf, expectConsistent }
}
