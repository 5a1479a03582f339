// Shared steps of the escrow tests: users, an escrow quote, payments from outside wallets on the
// dev chain, and running the background work (watcher, sender) until it is done.
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { AVAX, balanceOf, openTransfers, sendFrom } from '../helpers/money.ts'

export { expectError } from '../helpers/errors.ts'

export { AVAX, expectConsistent, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

export function tomorrow(t: TestApp) {
  return new Date(t.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10)
}

export async function initiate(
  t: TestApp,
  payer: TestUser,
  receiver: TestUser,
  body: Record<string, unknown> = {},
) {
  const res = await t.req({
    method: 'POST',
    url: '/v1/escrow/initiate',
    token: payer.token,
    payload: {
      title: 'Build a landing page',
      description: 'One page, responsive',
      amount: 100,
      coin: 'avax',
      dueDate: tomorrow(t),
      isPrivate: false,
      isFundingRequest: false,
      receiverId: receiver.id,
      ...body,
    },
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

export async function post(
  t: TestApp,
  user: TestUser | undefined,
  url: string,
  payload: unknown,
  headers = {},
) {
  // #14 and /v1/payment/validate ask the watcher's job for a scan and wait for it a short while;
  // no worker runs jobs in these tests, so the test runs the scan a worker would.
  if (url.endsWith('/validate')) await t.app.services.settlement.watcher.scanNow()
  return t.req({
    method: 'POST',
    url,
    payload: payload as object,
    headers,
    ...(user ? { token: user.token } : {}),
  })
}

/**
 * An escrow of 50 USD in AVAX paid from the dev chain's account `outsider` with 1 AVAX more than
 * asked (the overpayment goes back to the payer with the last part), validated `paid`, and its first
 * part (12.5 USD) released.
 */
export async function overpaidEscrowPartlyReleased(
  t: TestApp,
  payer: TestUser,
  receiver: TestUser,
  outsider: number,
) {
  const q = await initiate(t, payer, receiver, { amount: 50 })
  const from = t.app.services.chain.devnet!.accounts[outsider]!
  await sendFrom(t, from, q.address, 'avax', BigInt(q.amountToPayBaseUnits) + AVAX)
  const v = await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status, v.body).toBe('paid')
  const payerBefore = await balanceOf(t, payer.id, 'avax')
  const receiverBefore = await balanceOf(t, receiver.id, 'avax')
  const part = await post(t, payer, '/v1/payment/release', { collection: q.collectionId, amount: 12.5 })
  expect(part.statusCode, part.body).toBe(200)
  return { q, payerBefore, receiverBefore }
}

/** Runs jobs and the watcher, moving the clock past every backoff, until no transfer is open. */
export async function settleAll(t: TestApp, maxRounds = 60) {
  for (let i = 0; i < maxRounds; i++) {
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    if ((await openTransfers(t)).length === 0) {
      await t.app.services.settlement.watcher.scanNow()
      await t.drain()
      return
    }
    t.clock.advance(60_000)
  }
  throw new Error(`transfers still open: ${JSON.stringify(await openTransfers(t))}`)
}

export async function collection(t: TestApp, user: TestUser, id: string) {
  const res = await t.req({ method: 'GET', url: `/v1/collection/${id}`, token: user.token })
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}

export const userBalance = balanceOf
