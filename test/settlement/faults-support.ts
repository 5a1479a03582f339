// Steps shared by the fault tests: the app runs in its production configuration behind the
// fault-injecting proxy (test/helpers/proxied-app.ts); outside keys pay through the devnet itself;
// the service's own jobs and watcher are run round after round, with the clock moved past their
// backoffs, until what a test waits for holds. Errors of a round (a fault the service passed on)
// are collected, not thrown: a real worker runs the next round all the same.
import type { Address, Hex } from 'viem'
import { expect } from 'vitest'
import type { TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import type { ProxiedApp } from '../helpers/proxied-app.ts'

export const AVAX = 10n ** 18n
export const USDC = 10n ** 6n

/** Pays from an outside key through the devnet (never through the proxy) and waits for the receipt. */
export async function pay(
  w: ProxiedApp,
  from: { privateKey: Hex },
  to: string,
  coin: string,
  amount: bigint,
) {
  const node = w.node
  const signed = await node.signTransfer(from.privateKey, {
    coin,
    to,
    amount,
    nonce: await node.getNonce(node.addressOf(from.privateKey), 'pending'),
  })
  await node.broadcast(signed.raw)
  return signed
}

/** The user's custodial address (read from the database: the wallet route may itself read the chain) */
export async function addressOf(w: ProxiedApp, user: TestUser): Promise<Address> {
  const row = await w.t.database.db
    .selectFrom('walletKeys')
    .select('address')
    .where('ownerKind', '=', 'user')
    .where('ownerId', '=', user.id)
    .executeTakeFirst()
  if (row) return row.address as Address
  const res = await w.t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.wallets[0].address
}

export const balanceOf = (w: ProxiedApp, userId: string, coin: string) =>
  w.t.app.services.ledger.balance(w.t.database.db, 'user', userId, coin)

/** Deposit records of a user's coin (what the transaction list shows). */
export async function depositsOf(w: ProxiedApp, userId: string, coin: string) {
  return w.t.database.db
    .selectFrom('transactions')
    .select(['id', 'amount', 'status', 'txHash'])
    .where('ownerId', '=', userId)
    .where('type', '=', 'deposit')
    .where('coin', '=', coin)
    .execute()
}

/**
 * One round of background work, as a worker would run it: a watcher pass, then every due job,
 * then the clock moved on by `advanceMs` so that retries and re-checks come due. Returns the
 * errors the round met.
 */
export async function round(w: ProxiedApp, advanceMs = 5_000): Promise<string[]> {
  const errors: string[] = []
  await w.t.app.services.settlement.watcher
    .scanNow()
    .catch((e: Error) => errors.push(`scan: ${e.message.split('\n')[0]}`))
  await w.t.drain().catch((e: Error) => errors.push(`jobs: ${e.message.split('\n')[0]}`))
  w.t.clock.advance(advanceMs)
  return errors
}

/** Runs rounds until `done()` holds; fails with what the rounds met when it never does. */
export async function until(w: ProxiedApp, done: () => Promise<boolean>, maxRounds = 80, advanceMs = 5_000) {
  const met: string[] = []
  for (let i = 0; i < maxRounds; i++) {
    if (await done()) return met
    met.push(...(await round(w, advanceMs)))
  }
  if (await done()) return met
  throw new Error(`not reached after ${maxRounds} rounds; errors met: ${JSON.stringify(met.slice(-10))}`)
}

export function openTransfers(w: ProxiedApp) {
  return w.t.database.db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'purpose'])
    .where('status', 'not in', ['completed', 'failed'])
    .execute()
}

export async function withdraw(w: ProxiedApp, user: TestUser, coin: string, amount: number, address: string) {
  const res = await w.t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { password: user.password, amount, coin, address },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.withdrawalId as string
}

/** With every fault removed: ledger invariants hold and the ledger equals the chain at every address. */
export async function expectSettled(w: ProxiedApp) {
  w.proxy.clear()
  w.proxy.release()
  await until(w, async () => (await openTransfers(w)).length === 0)
  // Every block up to now confirmed and read by the watcher: a deposit mined in the last blocks is
  // on chain before its confirmations let it be credited.
  const head = await w.node.blockNumber()
  await w.node.devnet.mine(
    Number(w.t.config.confirmations === 'finalized' ? 1 : w.t.config.confirmations) + 1,
  )
  await until(w, async () => ((await w.t.app.services.settlement.watcher.scanNow()).cursor ?? -1n) >= head)
  await expectLedgerConsistent(w.t.database.db, { chain: w.t.app.services.chain })
  expect(await w.t.app.services.settlement.halts.list(), 'no coin halted').toEqual([])
}
