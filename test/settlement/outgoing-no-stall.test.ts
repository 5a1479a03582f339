// Sends waiting for their receipts hold no worker: the app in its production configuration behind
// the fault-injecting proxy, the real worker loop running, the provider swallowing the broadcasts
// of an address's lowest pending nonce, so twenty withdrawals from that address wait for receipts
// that cannot come yet. A deposit made meanwhile is credited while all twenty are still pending;
// once the provider lets broadcasts through, the swallowed transaction is broadcast again at its
// next check and lands once, and the nineteen after it.
import { type Hex, parseTransaction } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createUser } from '../helpers/factories.ts'
import { openProxiedApp, type ProxiedApp } from '../helpers/proxied-app.ts'
import { faults } from '../helpers/rpc-proxy.ts'
import { AVAX, addressOf, balanceOf, expectSettled, pay, until, withdraw } from './faults-support.ts'

let w: ProxiedApp
beforeAll(async () => {
  w = await openProxiedApp({ seed: 7 })
})
afterAll(() => w?.close())

const SENDS = 20

/** Status of each of the transfers. */
async function statuses(ids: string[]) {
  const rows = await w.t.database.db
    .selectFrom('outgoingTransfers')
    .select(['id', 'status'])
    .where('id', 'in', ids)
    .execute()
  return rows.map((r) => r.status)
}

/**
 * Runs the real worker loop while the manual clock moves on by `stepMs` at every look, until
 * `done()` holds (each look waits a few milliseconds for the loop to work).
 */
async function whileWorking(done: () => Promise<boolean>, stepMs = 500, looks = 3000) {
  for (let i = 0; i < looks; i++) {
    if (await done()) return
    w.t.clock.advance(stepMs)
    w.t.app.services.jobs.poke()
    await new Promise((r) => setTimeout(r, 20))
  }
  const open = await w.t.database.db
    .selectFrom('outgoingTransfers')
    .select(['status', 'purpose', 'failures', 'errors', 'waitingForFee'])
    .where('status', 'not in', ['completed', 'failed'])
    .execute()
  throw new Error(
    `condition not reached; open transfers: ${JSON.stringify(open)}; swallowed: ${w.proxy.swallowed.length}`,
  )
}

async function scenario() {
  const { t, node, proxy } = w
  const sender = t.app.services.outgoing
  const jobs = t.app.services.jobs
  // One top-up brings gas for all the sends below.
  sender.options.topUpFactor = 100n
  const payer = node.devnet.accounts[2]!
  const user = await createUser(t)
  const address = await addressOf(w, user)
  await pay(w, payer, address, 'avax', 10n * AVAX)
  await until(w, async () => (await balanceOf(w, user.id, 'avax')) === 10n * AVAX)
  // A first withdrawal brings the address its gas (a top-up from the gas wallet).
  await withdraw(w, user, 'avax', 0.01, privateKeyToAddress(generatePrivateKey()))
  await until(
    w,
    async () =>
      (
        await t.database.db
          .selectFrom('outgoingTransfers')
          .select('id')
          .where('status', 'not in', ['completed', 'failed'])
          .execute()
      ).length === 0,
  )

  // The provider swallows the broadcasts of the address's next nonce (until told otherwise):
  // every later nonce of the address waits for it.
  const gapNonce = await node.getNonce(address, 'latest')
  const targets = Array.from({ length: SENDS }, () => privateKeyToAddress(generatePrivateKey()))
  const targetSet = new Set(targets.map((a) => a.toLowerCase()))
  const stopSwallowing = proxy.add({
    method: 'eth_sendRawTransaction',
    fault: faults.swallow,
    when: (params) => {
      const tx = parseTransaction(params[0] as Hex)
      return tx.nonce === gapNonce && !!tx.to && targetSet.has(tx.to.toLowerCase())
    },
  })
  const depositor = await createUser(t)
  const depositAddress = await addressOf(w, depositor)

  // A chain as it runs: a block every 300 ms, transactions wait in the mempool (a later nonce
  // waits there for the one before it).
  await node.devnet.setAutomine(false)
  await node.devnet.setIntervalMining(300)
  jobs.start(20)
  try {
    const withdrawalIds: string[] = []
    for (const to of targets) withdrawalIds.push(await withdraw(w, user, 'avax', 0.1, to))
    const transferIds = (
      await t.database.db
        .selectFrom('withdrawals')
        .select('outgoingId')
        .where('id', 'in', withdrawalIds)
        .execute()
    ).map((r) => r.outgoingId!)

    // All twenty signed and broadcast (the lowest one swallowed): they wait for receipts.
    await whileWorking(async () => (await statuses(transferIds)).every((s) => s === 'sent'), 0)
    expect(proxy.swallowed.length).toBeGreaterThanOrEqual(1)

    // A deposit arrives meanwhile, while the twenty are checked again and again (and the lowest
    // swallowed again): it is credited while all twenty are still pending.
    await pay(w, payer, depositAddress, 'avax', 3n * AVAX)
    let pendingAtCredit: string[] = []
    await whileWorking(async () => {
      if ((await balanceOf(w, depositor.id, 'avax')) !== 3n * AVAX) return false
      pendingAtCredit = await statuses(transferIds)
      return true
    })
    expect(pendingAtCredit).toHaveLength(SENDS)
    expect(pendingAtCredit.every((s) => s === 'sent')).toBe(true)

    // The provider lets broadcasts through again: the swallowed transaction is broadcast again at
    // its next check, and all twenty land.
    stopSwallowing()
    await whileWorking(async () => (await statuses(transferIds)).every((s) => s === 'completed'))
    // Waiting for a receipt, however long, was never a failed attempt.
    const failures = await t.database.db
      .selectFrom('outgoingTransfers')
      .select('failures')
      .where('id', 'in', transferIds)
      .execute()
    expect(failures.map((f) => f.failures)).toEqual(transferIds.map(() => 0))
  } finally {
    await jobs.stop()
  }
  // Every swallowed broadcast was the one transaction, the one that landed.
  const swallowed = proxy.swallowed[0]!
  expect(new Set(proxy.swallowed).size).toBe(1)
  const receipt = await node.getReceipt(swallowed)
  expect(receipt?.status).toBe('success')
  // Landed once each: the address used exactly twenty more nonces, each target got its amount once.
  expect(await node.getNonce(address, 'latest')).toBe(gapNonce + SENDS)
  for (const to of targets) expect(await node.balanceOf(to, 'avax')).toBe(AVAX / 10n)
  const mined = await t.database.db
    .selectFrom('outgoingTransfers')
    .select('txHash')
    .where('txHash', '=', swallowed.toLowerCase())
    .execute()
  expect(mined).toHaveLength(1)
  expect(await balanceOf(w, depositor.id, 'avax')).toBe(3n * AVAX)
  await expectSettled(w)
}

it('credits a deposit while twenty sends wait for receipts, and sends a swallowed broadcast again, once', {
  timeout: 300_000,
}, async () => {
  try {
    await scenario()
  } finally {
    await w.node.devnet.setIntervalMining(0)
    await w.node.devnet.setAutomine(true)
  }
})
