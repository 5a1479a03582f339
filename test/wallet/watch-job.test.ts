// The deposit watcher runs as a self-renewing job. A few renewals that fail in a row (the
// database briefly unreachable while the next run is scheduled) must not end the chain of runs:
// nothing else would credit deposits until the process restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'

const AVAX = 10n ** 18n
let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

describe('the wallet.watch job', () => {
  it('keeps polling the chain after its renewal failed several times in a row', async () => {
    const user = await createUser(t)
    const wallet = await t.req({ method: 'GET', url: '/v1/wallet', token: user.token })
    expect(wallet.statusCode, wallet.body).toBe(200)
    const address: string = wallet.json().data.wallets[0].address
    await t.drain()

    const jobs = t.app.services.jobs
    const enqueue = jobs.enqueue
    let failures = 0
    jobs.enqueue = function (this: typeof jobs, ex, kind, payload, opts) {
      if (kind === 'wallet.watch' && failures < 5) {
        failures++
        return Promise.reject(new Error('the database is unreachable'))
      }
      return enqueue.call(this, ex, kind, payload, opts)
    }
    try {
      for (let i = 0; i < 10 && failures < 5; i++) {
        t.clock.advance(60_000)
        await t.drain()
      }
    } finally {
      jobs.enqueue = enqueue
    }
    expect(failures).toBe(5)

    // A deposit is credited by the job alone (no direct scan).
    const chain = t.app.services.chain
    const payer = chain.devnet!.accounts[4]!
    const signed = await chain.signTransfer(payer.privateKey, {
      coin: 'avax',
      to: address,
      amount: AVAX,
      nonce: await chain.getNonce(payer.address, 'pending'),
    })
    await chain.broadcast(signed.raw)
    await chain.waitForReceipt(signed.hash)
    const balance = () => t.app.services.ledger.balance(t.database.db, 'user', user.id, 'avax')
    for (let i = 0; i < 10 && (await balance()) === 0n; i++) {
      t.clock.advance(60_000)
      await t.drain()
    }
    expect(await balance()).toBe(AVAX)
  })
})
