// The sends of one address take its turn in the process before they lock its nonce row: while
// the row is held (here by another transaction, as another process's send would), one send waits
// on it inside PostgreSQL and the others wait in memory, holding no pooled connection. Released,
// every send goes on and they take consecutive nonces. PostgreSQL: the embedded database has one
// connection, so nothing there runs beside the held transaction.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outgoingRepo } from '../../src/modules/settlement/outgoing/repo.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { heldOpen, lockWaiters } from '../helpers/held-transaction.ts'
import {
  AVAX,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

/** Lets pending callbacks and statements go on for a moment. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Connections of this test's database waiting for a lock. */
const waitingOnLocks = () => lockWaiters(t.database.db)

async function until(what: string, done: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 400; i++) {
    if (await done()) return
    await pause(10)
  }
  throw new Error(`timed out waiting until ${what}`)
}

describe.runIf(process.env.TEST_DB === 'postgres')('the turns of an address', () => {
  it('lets one send wait on the nonce row and the others in memory, then all go on in nonce order', async () => {
    const db = t.database.db
    const user = await createUser(t)
    await fundUser(t, 4, user, 'avax', 10n * AVAX)
    const address = (await walletAddress(t, user)).toLowerCase()
    const ids: string[] = []
    for (let i = 0; i < 3; i++) ids.push((await withdrawAvax(t, user, 0.01, freshAddress())).transferId)

    const sender = t.app.services.outgoing
    const turns = sender.turns
    const takeTurn = turns.run.bind(turns)
    let arrived = 0
    turns.run = (key, task) => {
      if (key === address) arrived++
      return takeTurn(key, task)
    }
    // The address's nonce row, held as another process's send would hold it.
    const holder = await heldOpen(db, (tx) =>
      outgoingRepo.lockNonce(tx, sender.chainKey, address, t.clock.now()),
    )
    let runs: Promise<void>[] = []
    try {
      runs = ids.map((id) => sender.run(id))
      await until('every send asked for the turn', () => arrived >= 3)
      await until('a send waits on the row', async () => (await waitingOnLocks()) >= 1)
      await pause(200)
      // one waits inside PostgreSQL; the other two wait for the turn, without a connection
      expect(await waitingOnLocks()).toBe(1)
      expect(turns.size).toBeGreaterThanOrEqual(1)
    } finally {
      await holder.release()
      await Promise.all(runs)
      turns.run = takeTurn
    }

    await settleAll(t)
    expect(turns.size).toBe(0)
    const sent = await db
      .selectFrom('outgoingTransfers')
      .select(['nonce', 'status'])
      .where('id', 'in', ids)
      .orderBy('nonce')
      .execute()
    expect(sent.map((s) => s.status)).toEqual(['completed', 'completed', 'completed'])
    const nonces = sent.map((s) => Number(s.nonce))
    expect(nonces).toEqual([nonces[0], nonces[0]! + 1, nonces[0]! + 2])
  })
})
