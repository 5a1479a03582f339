// Crash safety of the outgoing sender: a worker that dies between any two steps (before signing,
// after the signed transaction was stored, after it was broadcast, after its receipt was read)
// is resumed by the next run, which sends the same stored transaction (never a second one).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type CrashPoint, SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { ChainError } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import {
  AVAX,
  balanceOf,
  expectConsistent,
  freshAddress,
  fundUser,
  settleAll,
  USDC,
  walletAddress,
} from './helpers.ts'

let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
})
afterEach(() => {
  t.crash.hook = undefined
})
afterAll(() => t?.close())

async function transferOf(withdrawalId: string) {
  return t.database.db
    .selectFrom('withdrawals')
    .innerJoin('outgoingTransfers', 'outgoingTransfers.id', 'withdrawals.outgoingId')
    .select([
      'withdrawals.status as withdrawalStatus',
      'outgoingTransfers.status',
      'outgoingTransfers.txHash',
      'outgoingTransfers.raw',
      'outgoingTransfers.nonce',
    ])
    .where('withdrawals.id', '=', withdrawalId)
    .executeTakeFirstOrThrow()
}

async function holdOf(withdrawalId: string) {
  return t.database.db
    .selectFrom('withdrawals')
    .innerJoin('ledgerHolds', 'ledgerHolds.id', 'withdrawals.holdId')
    .select(['ledgerHolds.status', 'ledgerHolds.resolutionKey', 'ledgerHolds.postedAmount'])
    .where('withdrawals.id', '=', withdrawalId)
    .executeTakeFirstOrThrow()
}

const cases: {
  at: CrashPoint
  coin: 'avax' | 'usdc'
  expectAfterCrash: string
  landedBeforeResume: boolean
}[] = [
  { at: 'before-sign', coin: 'avax', expectAfterCrash: 'queued', landedBeforeResume: false },
  { at: 'after-sign', coin: 'avax', expectAfterCrash: 'signed', landedBeforeResume: false },
  // The broadcast is recorded (signed → sent) by the run's last transaction, which a crash before
  // it never makes: the transfer stays signed, and the next run broadcasts it again or finds it mined.
  { at: 'after-broadcast', coin: 'avax', expectAfterCrash: 'signed', landedBeforeResume: true },
  { at: 'after-receipt', coin: 'avax', expectAfterCrash: 'signed', landedBeforeResume: true },
  { at: 'after-sign', coin: 'usdc', expectAfterCrash: 'signed', landedBeforeResume: false },
  { at: 'after-broadcast', coin: 'usdc', expectAfterCrash: 'signed', landedBeforeResume: true },
  // inside the settlement: the hold posted, the transfer not yet completed; all of it rolls back
  { at: 'after-hold-post', coin: 'avax', expectAfterCrash: 'signed', landedBeforeResume: true },
]

describe('a worker dying between steps', () => {
  it.each(cases)(
    'resumes after a crash $at ($coin) and sends exactly once',
    async ({ at, coin, expectAfterCrash, landedBeforeResume }) => {
      const user = await createUser(t)
      const unit = coin === 'avax' ? AVAX : USDC
      await fundUser(t, 6, user, coin, 3n * unit)
      const from = await walletAddress(t, user)
      const chain = t.app.services.chain
      const sentBefore = await chain.getNonce(from, 'latest')
      const to = freshAddress()
      const res = await t.req({
        method: 'POST',
        url: '/v1/withdrawals/',
        token: user.token,
        payload: { amount: 1, coin, address: to, password: user.password },
      })
      expect(res.statusCode, res.body).toBe(200)
      const { withdrawalId } = res.json().data

      const { outgoingId } = await t.database.db
        .selectFrom('withdrawals')
        .select('outgoingId')
        .where('id', '=', withdrawalId)
        .executeTakeFirstOrThrow()
      let crashes = 0
      t.crash.hook = (point, transferId) => {
        if (point === at && transferId === outgoingId && crashes === 0) {
          crashes++
          throw new SimulatedCrash(point)
        }
      }
      // Run until the crash happened (a token withdrawal first waits for its gas top-up).
      for (let i = 0; i < 30 && crashes === 0; i++) {
        await t.drain()
        if (crashes === 0) t.clock.advance(5_000)
      }
      expect(crashes).toBe(1)
      const crashed = await transferOf(withdrawalId)
      expect(crashed.status).toBe(expectAfterCrash)
      expect(crashed.withdrawalStatus).toBe('processing')
      if (expectAfterCrash !== 'queued') {
        expect(crashed.raw).toMatch(/^0x/)
        expect(crashed.txHash).toMatch(/^0x[0-9a-f]{64}$/)
      }
      expect(await chain.balanceOf(to, coin)).toBe(landedBeforeResume ? unit : 0n)
      // The withdrawal's hold is still pending: nothing settled, nothing half-settled.
      expect(await holdOf(withdrawalId)).toMatchObject({ status: 'pending', resolutionKey: null })

      // The restarted worker finishes the job.
      await settleAll(t)
      const done = await transferOf(withdrawalId)
      expect(done.withdrawalStatus).toBe('completed')
      expect(done.status).toBe('completed')
      if (expectAfterCrash !== 'queued') {
        // The very transaction stored before the crash, not a re-signed one.
        expect(done.txHash).toBe(crashed.txHash)
        expect(done.raw).toBe(crashed.raw)
      }
      expect(await chain.balanceOf(to, coin)).toBe(unit)
      // Posted once, by the settlement's key.
      expect(await holdOf(withdrawalId)).toMatchObject({
        status: 'posted',
        resolutionKey: `outgoing:${outgoingId}:value`,
      })
      // Exactly one transaction left the user's address.
      expect(await chain.getNonce(from, 'latest')).toBe(sentBefore + 1)
      const fee = coin === 'avax' ? AVAX / 1000n : USDC / 10n
      expect(await balanceOf(t, user.id, coin)).toBe(2n * unit - fee)
      await expectConsistent(t)
    },
  )

  it('settles a transfer once when two workers run it at the same time', async () => {
    const user = await createUser(t)
    await fundUser(t, 7, user, 'avax', 2n * AVAX)
    const from = await walletAddress(t, user)
    const chain = t.app.services.chain
    const before = await chain.getNonce(from, 'latest')
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.5, coin: 'avax', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    const row = await t.database.db
      .selectFrom('withdrawals')
      .select('outgoingId')
      .where('id', '=', res.json().data.withdrawalId)
      .executeTakeFirstOrThrow()
    const sender = t.app.services.outgoing
    await Promise.all([sender.run(row.outgoingId!), sender.run(row.outgoingId!), sender.run(row.outgoingId!)])
    await settleAll(t)
    expect(await chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect(await chain.getNonce(from, 'latest')).toBe(before + 1)
    await expectConsistent(t)
  })

  it('does not fail a transfer that another worker signed while this one recorded its last failure', async () => {
    const user = await createUser(t)
    await fundUser(t, 9, user, 'avax', 2n * AVAX)
    const from = await walletAddress(t, user)
    const chain = t.app.services.chain
    const before = await chain.getNonce(from, 'latest')
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.5, coin: 'avax', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    const { withdrawalId } = res.json().data
    const { outgoingId } = await t.database.db
      .selectFrom('withdrawals')
      .select('outgoingId')
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    const id = outgoingId!
    const sender = t.app.services.outgoing
    // Up to just before signing (its gas reserved), then that worker dies.
    let stopped = false
    t.crash.hook = (point, transferId) => {
      if (point === 'before-sign' && transferId === id && !stopped) {
        stopped = true
        throw new SimulatedCrash(point)
      }
    }
    for (let i = 0; i < 30 && !stopped; i++) {
      await t.drain()
      if (!stopped) t.clock.advance(5_000)
    }
    expect((await transferOf(withdrawalId)).status).toBe('queued')

    // Worker A's attempt fails (the node refuses the fee query while it prepares), and it is its last.
    // Right after A has read the transfer to record that failure, worker B signs and broadcasts
    // the transfer, then dies.
    const maxFailures = sender.options.maxFailures
    const estimateFees = chain.estimateFees
    const load = sender.load
    let armed = false
    let bSent = false
    sender.options.maxFailures = 1
    chain.estimateFees = async () => {
      chain.estimateFees = estimateFees
      armed = true
      throw new ChainError('REJECTED', 'estimate fees: the method eth_feeHistory is not available')
    }
    sender.load = async (ex, transferId, forUpdate = false) => {
      const row = await load.call(sender, ex, transferId, forUpdate)
      if (armed && !forUpdate && transferId === id) {
        armed = false
        t.crash.hook = (point, tid) => {
          if (point === 'after-broadcast' && tid === id) throw new SimulatedCrash(point)
        }
        await sender.run(id).catch((err) => {
          if (!(err instanceof SimulatedCrash)) throw err
          bSent = true
        })
        t.crash.hook = undefined
      }
      return row
    }
    try {
      await sender.run(id)
    } finally {
      chain.estimateFees = estimateFees
      sender.load = load
      sender.options.maxFailures = maxFailures
    }
    expect(bSent).toBe(true)
    // B's transaction is on chain: the withdrawal must not be failed (its hold released) now.
    expect(await chain.balanceOf(to, 'avax')).toBe(AVAX / 2n)
    expect((await transferOf(withdrawalId)).withdrawalStatus).toBe('processing')

    await settleAll(t)
    const done = await transferOf(withdrawalId)
    expect(done.withdrawalStatus).toBe('completed')
    expect(await chain.getNonce(from, 'latest')).toBe(before + 1)
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - AVAX / 2n - AVAX / 1000n)
    await expectConsistent(t)
  })

  it('fails (and releases the hold) only once the chain proves the signed transfer can never land', async () => {
    const user = await createUser(t)
    await fundUser(t, 8, user, 'avax', 2n * AVAX)
    const from = await walletAddress(t, user)
    const chain = t.app.services.chain
    const to = freshAddress()
    const res = await t.req({
      method: 'POST',
      url: '/v1/withdrawals/',
      token: user.token,
      payload: { amount: 0.5, coin: 'avax', address: to, password: user.password },
    })
    expect(res.statusCode, res.body).toBe(200)
    const { withdrawalId } = res.json().data
    const { outgoingId } = await t.database.db
      .selectFrom('withdrawals')
      .select('outgoingId')
      .where('id', '=', withdrawalId)
      .executeTakeFirstOrThrow()
    let crashed = false
    t.crash.hook = (point, transferId) => {
      if (point === 'after-sign' && transferId === outgoingId && !crashed) {
        crashed = true
        throw new SimulatedCrash(point)
      }
    }
    for (let i = 0; i < 30 && !crashed; i++) {
      await t.drain()
      if (!crashed) t.clock.advance(5_000)
    }
    const signed = await transferOf(withdrawalId)
    expect(signed.status).toBe('signed')
    // Another transaction takes the stored transaction's nonce (the key used outside the sender).
    const key = await t.app.services.keys.privateKey(t.database.db, from)
    const other = await chain.signTransfer(key, {
      coin: 'avax',
      to: from,
      amount: 0n,
      nonce: Number(signed.nonce),
    })
    await chain.broadcast(other.raw)
    const otherReceipt = await chain.waitForReceipt(other.hash)

    await settleAll(t)
    // A key the platform never exported signed a transaction the database does not know: its coin
    // halts and its gas waits parked (as after a restore) until an operator decides; judged
    // external, the watcher books the gas once the coin resumes.
    const halt = await t.database.db
      .selectFrom('coinHalts')
      .select('reason')
      .where('coin', '=', 'avax')
      .where('clearedAt', 'is', null)
      .executeTakeFirstOrThrow()
    expect(halt.reason).toBe('unknown_platform_transfer')
    const { platformTransfers } = t.app.services.restore
    const [finding] = (await platformTransfers.list({ status: 'open', page: 1, limit: 10 })).rows
    expect(finding?.txHash).toBe(other.hash.toLowerCase())
    await platformTransfers.markExternal(
      finding!.id,
      'test',
      'the key was used outside the sender',
      async () => {},
    )
    await t.app.services.settlement.halts.resume('avax', 'test', 'judged external')
    await t.app.services.settlement.watcher.scanNow()
    const done = await transferOf(withdrawalId)
    expect(done.withdrawalStatus).toBe('failed')
    expect(await chain.balanceOf(to, 'avax')).toBe(0n)
    // Everything held came back; only the outside transaction's gas was booked (by the watcher).
    expect(await balanceOf(t, user.id, 'avax')).toBe(2n * AVAX - otherReceipt.fee)
    await expectConsistent(t)
  })
})
