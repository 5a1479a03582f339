// Money steps shared by the withdrawal and escrow tests: units, a user's wallet address, payments
// from outside wallets on the dev chain, open outgoing transfers, balances and ledger invariants.
import type { Address, Hex } from 'viem'
import { expect } from 'vitest'
import type { TestApp } from './app.ts'
import type { TestUser } from './factories.ts'
import { expectLedgerConsistent } from './ledger.ts'

export const AVAX = 10n ** 18n
export const USDC = 10n ** 6n

export async function walletAddress(t: TestApp, user: TestUser): Promise<Address> {
  const res = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.wallets[0].address
}

/** Sends `amount` base units from a dev account (outside the platform) and waits for the receipt. */
export async function sendFrom(
  t: TestApp,
  from: { address: Address; privateKey: Hex },
  to: string,
  coin: string,
  amount: bigint,
) {
  const c = t.app.services.chain
  const signed = await c.signTransfer(from.privateKey, {
    coin,
    to,
    amount,
    nonce: await c.getNonce(from.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  await c.waitForReceipt(signed.hash)
}

export function openTransfers(t: TestApp) {
  return t.database.db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'purpose'])
    .where('status', 'not in', ['completed', 'failed'])
    .execute()
}

/** The user's wallet balance in the ledger, in base units. */
export function balanceOf(t: TestApp, userId: string, coin: string) {
  return t.app.services.ledger.balance(t.database.db, 'user', userId, coin)
}

export async function expectConsistent(t: TestApp) {
  await t.app.services.settlement.watcher.scanNow()
  await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
}
