// Shared steps of the withdrawal tests: funding a user's custodial wallet on the dev chain (credited
// by the real deposit watcher), running the sender until every transfer settled, and snapshots of
// everything a refused request must leave unchanged.
import { type Address, type Hex, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { openTransfers, sendFrom, walletAddress } from '../helpers/money.ts'

export { AVAX, balanceOf, expectConsistent, openTransfers, USDC, walletAddress } from '../helpers/money.ts'

export function freshAddress(): Address {
  return privateKeyToAddress(generatePrivateKey())
}

/** Pays `amount` to `to` from a dev account and lets the watcher credit it. */
export async function deposit(
  t: TestApp,
  payer: { address: Address; privateKey: Hex },
  to: string,
  coin: string,
  amount: bigint,
) {
  await sendFrom(t, payer, to, coin, amount)
  await t.app.services.settlement.watcher.scanNow()
}

export async function fundUser(t: TestApp, payerIndex: number, user: TestUser, coin: string, amount: bigint) {
  const payer = t.app.services.chain.devnet!.accounts[payerIndex]!
  if (coin !== 'avax') await t.app.services.chain.devnet!.fund(payer.address, coin, amount)
  await deposit(t, payer, await walletAddress(t, user), coin, amount)
}

/** Runs jobs, moving the clock past every backoff, until no transfer is open. */
export async function settleAll(t: TestApp, maxRounds = 60) {
  for (let i = 0; i < maxRounds; i++) {
    await t.drain()
    if ((await openTransfers(t)).length === 0) {
      // (the chain may be down in a test: the final scan is then left to expectConsistent)
      await t.app.services.settlement.watcher.scanNow().catch(() => {})
      await t.drain()
      return
    }
    t.clock.advance(60_000)
  }
  throw new Error(`transfers still open: ${JSON.stringify(await openTransfers(t))}`)
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

/** A withdrawal of `amount` AVAX to `to` through the API; its id and its outgoing transfer's id. */
export function withdrawAvax(t: TestApp, user: TestUser, amount: number, to: string) {
  return withdrawCoin(t, user, 'avax', amount, to)
}

/** A withdrawal of `amount` of `coin` to `to` (`POST /v1/withdrawals/`), and its transfer. */
export async function withdrawCoin(t: TestApp, user: TestUser, coin: string, amount: number, to: string) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/withdrawals/',
    token: user.token,
    payload: { amount, coin, address: to, password: user.password },
  })
  expect(res.statusCode, res.body).toBe(200)
  const withdrawalId: string = res.json().data.withdrawalId
  const { outgoingId } = await t.database.db
    .selectFrom('withdrawals')
    .select('outgoingId')
    .where('id', '=', withdrawalId)
    .executeTakeFirstOrThrow()
  return { withdrawalId, transferId: outgoingId! }
}
