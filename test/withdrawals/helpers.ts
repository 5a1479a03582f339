// Shared steps of the withdrawal tests: funding a user's custodial wallet on the dev chain (credited
// by the real deposit watcher), running the sender until every transfer settled, and snapshots of
// everything a refused request must leave unchanged.
import { type Address, type Hex, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'

export const AVAX = 10n ** 18n
export const USDC = 10n ** 6n

export function freshAddress(): Address {
  return privateKeyToAddress(generatePrivateKey())
}

export async function walletAddress(t: TestApp, user: TestUser): Promise<Address> {
  const res = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data.wallets[0].address
}

/** Pays `amount` to `to` from a dev account and lets the watcher credit it. */
export async function deposit(
  t: TestApp,
  payer: { address: Address; privateKey: Hex },
  to: string,
  coin: string,
  amount: bigint,
) {
  const c = t.app.services.chain
  const signed = await c.signTransfer(payer.privateKey, {
    coin,
    to,
    amount,
    nonce: await c.getNonce(payer.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  await c.waitForReceipt(signed.hash)
  await t.app.services.wallets.scanNow()
}

export async function fundUser(t: TestApp, payerIndex: number, user: TestUser, coin: string, amount: bigint) {
  const payer = t.app.services.chain.devnet!.accounts[payerIndex]!
  if (coin !== 'avax') await t.app.services.chain.devnet!.fund(payer.address, coin, amount)
  await deposit(t, payer, await walletAddress(t, user), coin, amount)
}

export async function balanceOf(t: TestApp, userId: string, coin: string) {
  return t.app.services.ledger.balance(t.database.db, 'user', userId, coin)
}

export async function openTransfers(t: TestApp) {
  return t.database.db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status', 'purpose'])
    .where('status', 'not in', ['completed', 'failed'])
    .execute()
}

/** Runs jobs, moving the clock past every backoff, until no transfer is open. */
export async function settleAll(t: TestApp, maxRounds = 60) {
  for (let i = 0; i < maxRounds; i++) {
    await t.drain()
    if ((await openTransfers(t)).length === 0) {
      // (the chain may be down in a test: the final scan is then left to expectConsistent)
      await t.app.services.wallets.scanNow().catch(() => {})
      await t.drain()
      return
    }
    t.clock.advance(60_000)
  }
  throw new Error(`transfers still open: ${JSON.stringify(await openTransfers(t))}`)
}

export async function expectConsistent(t: TestApp) {
  await t.app.services.wallets.scanNow()
  await expectLedgerConsistent(t.database.db, { chain: t.app.services.chain })
}

/** Everything a refused withdrawal must leave exactly as it was. */
export async function snapshot(t: TestApp) {
  const db = t.database.db
  const [accounts, entries, withdrawals, transactions, outgoing, jobs] = await Promise.all([
    db.selectFrom('ledgerAccounts').select(['id', 'balance']).orderBy('id').execute(),
    db
      .selectFrom('ledgerEntries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('withdrawals')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('outgoingTransfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('kind', '=', 'outgoing.send')
      .executeTakeFirstOrThrow(),
  ])
  return {
    accounts,
    entries: Number(entries.n),
    withdrawals: Number(withdrawals.n),
    transactions: Number(transactions.n),
    outgoing: Number(outgoing.n),
    jobs: Number(jobs.n),
  }
}

export const ether = (s: string) => parseEther(s)
