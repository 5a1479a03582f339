// Shared steps of the restore tests: a transaction a custodial key signs that the database never
// recorded (what a database restored from before the platform signed it sees on chain), and the
// admin calls on unknown platform transfers and parked jobs.
import type { Address } from 'viem'
import { expect } from 'vitest'
import type { TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { walletAddress } from '../helpers/money.ts'

/**
 * Signs and sends `amount` of `coin` from the user's custodial address with its own key, at the
 * address's next nonce, recording nothing: the platform's own transaction from a timeline the
 * database lost. Answers its hash.
 */
export async function signedInLostTimeline(
  t: TestApp,
  user: TestUser,
  coin: string,
  to: string,
  amount: bigint,
) {
  const { chain, keys } = t.app.services
  const from = (await walletAddress(t, user)).toLowerCase() as Address
  const key = await keys.privateKey(t.database.db, from)
  const signed = await chain.signTransfer(key, {
    coin,
    to,
    amount,
    nonce: await chain.getNonce(from, 'pending'),
  })
  await chain.broadcast(signed.raw)
  const receipt = await chain.waitForReceipt(signed.hash)
  expect(receipt.status).toBe('success')
  return signed.hash.toLowerCase()
}

export function adminCalls(t: TestApp, token: () => string) {
  return {
    get: (url: string) => t.req({ method: 'GET', url, token: token() }),
    post: (url: string, payload: Record<string, unknown>) =>
      t.req({ method: 'POST', url, token: token(), payload }),
  }
}

export async function openHalt(t: TestApp, coin: string) {
  return t.database.db
    .selectFrom('coinHalts')
    .selectAll()
    .where('coin', '=', coin)
    .where('clearedAt', 'is', null)
    .executeTakeFirst()
}
