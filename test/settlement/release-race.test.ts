// A release planned while a leg of an earlier part of the same escrow settles. The last part's
// refund is what the escrow keeps: its ledger balance less the legs not yet mined. A leg settling
// debits the escrow and becomes `completed` in one commit; were the two read without a lock, a leg
// settling between the reads would be counted neither as debited nor as open, and the refund would
// pay it a second time. The interleaving is forced (the leg settles the moment the release reads
// the escrow's account), not left to timing.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest'
import { SimulatedCrash } from '../../src/modules/settlement/outgoing/types.ts'
import { overpaidEscrowPartlyReleased, post } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { lockWaiters } from '../helpers/held-transaction.ts'
import { AVAX, balanceOf, expectConsistent, openTransfers, settleAll } from '../withdrawals/helpers.ts'

let t: TestApp

beforeAll(async () => {
  t = await createTestApp()
})
afterEach(() => {
  t.crash.hook = undefined
})
afterAll(() => t?.close())

function transfer(id: string) {
  return t.database.db
    .selectFrom('outgoingTransfers')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
}

/** True while a connection of this test's database waits for a row lock (PostgreSQL only). */
async function waitsForLock() {
  return (await lockWaiters(t.database.db)) > 0
}

describe('a release while an earlier leg settles', () => {
  // PGlite runs one transaction at a time, so a leg cannot settle while a release's transaction is
  // open there: the interleaving below exists on PostgreSQL only.
  it.skipIf(inject('testDb') !== 'postgres')(
    'plans the last part from one state of the escrow while a leg of an earlier part settles',
    async () => {
      const payer = await createUser(t)
      const receiver = await createUser(t)
      // An overpayment of 1 AVAX, returned to the payer with the last part; the first part released.
      const { q, payerBefore, receiverBefore } = await overpaidEscrowPartlyReleased(t, payer, receiver, 15)
      const feeLeg = await t.database.db
        .selectFrom('escrowLegs')
        .select(['outgoingId'])
        .where('escrowId', '=', q.escrowId)
        .where('kind', '=', 'fee')
        .executeTakeFirstOrThrow()
      const held = feeLeg.outgoingId!

      // The first part's network fee is mined but not settled yet (its worker dies after the
      // receipt); the other legs of that part settle.
      let holding = true
      let mined = false
      const sender = t.app.services.outgoing
      t.crash.hook = async (at, id) => {
        if (id !== held || at !== 'after-receipt' || !holding) return
        mined = true
        throw new SimulatedCrash(at)
      }
      for (let i = 0; i < 30; i++) {
        await t.drain()
        const open = await openTransfers(t)
        if (mined && open.length === 1 && open[0]!.id === held) break
        t.clock.advance(60_000)
      }
      // (still `signed`: its broadcast is recorded by the run's last transaction, which never came)
      expect(await openTransfers(t)).toEqual([expect.objectContaining({ id: held, status: 'signed' })])

      // The rest is released. The first time the release reads the escrow's ledger account, the
      // fee leg settles (its debit of the escrow and its `completed` status in one commit): either
      // to the end, or until it waits for a lock the release holds.
      const ledger = t.app.services.ledger
      let settling: Promise<void> | undefined
      const settleInside = async () => {
        if (settling) return
        holding = false
        let done = false
        settling = sender.run(held).finally(() => {
          done = true
        })
        for (let i = 0; i < 500 && !done && !(await waitsForLock()); i++)
          await new Promise((r) => setTimeout(r, 20))
      }
      const { balance } = ledger
      ledger.balance = async function (this: typeof ledger, ...args: Parameters<typeof balance>) {
        const read = await balance.apply(this, args)
        if (args[1] === 'escrow' && args[2] === q.escrowId) await settleInside()
        return read
      }
      let rest: { statusCode: number; body: string }
      try {
        rest = await post(t, payer, '/v1/escrow/release', { escrowId: q.escrowId })
      } finally {
        ledger.balance = balance
      }
      expect(settling).toBeDefined()
      await settling
      expect((await transfer(held)).status).toBe('completed')
      expect(rest.statusCode, rest.body).toBe(200)

      // The refund is the overpayment, not the overpayment and the fee leg once more.
      const refund = await t.database.db
        .selectFrom('escrowLegs')
        .select('amount')
        .where('escrowId', '=', q.escrowId)
        .where('kind', '=', 'refund')
        .executeTakeFirstOrThrow()
      expect(BigInt(refund.amount)).toBe(AVAX)
      await settleAll(t)
      expect(await t.app.services.ledger.balance(t.database.db, 'escrow', q.escrowId, 'avax')).toBe(0n)
      expect(await balanceOf(t, receiver.id, 'avax')).toBe(receiverBefore + 2n * AVAX)
      expect(await balanceOf(t, payer.id, 'avax')).toBe(payerBefore + AVAX)
      await expectConsistent(t)
    },
  )
})
