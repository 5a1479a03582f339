// The parked backlog the watcher books once coins resume, read from a real database: movements of
// transactions with an open platform transfer finding are left out by the query itself, so a
// batch is never filled (and everything behind it starved) by movements that must stay parked;
// a finding once resolved lets its movements be read again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../src/db/index.ts'
import { watcherRepo } from '../../src/modules/settlement/watcher/repo.ts'
import { newId } from '../../src/platform/crypto/ids.ts'
import { openTestDatabase } from '../helpers/app.ts'

let database: Database
beforeAll(async () => {
  database = await openTestDatabase()
})
afterAll(async () => {
  await database?.close()
})

const CHAIN = '31337'
const ADDRESS = `0x${'ab'.repeat(20)}`
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

async function park(txHash: string, block: number, coin = 'avax') {
  const movement = { txHash, kind: 'withdrawal', coin, amount: '1', blockNumber: String(block) }
  await database.db
    .insertInto('chainEvents')
    .values({
      chainId: CHAIN,
      txHash,
      logIndex: block,
      kind: 'withdrawal',
      address: ADDRESS,
      ownerKind: 'user',
      ownerId: newId(),
      coin,
      amount: '1',
      blockNumber: block,
      blockHash: hashOf(block),
      txIndex: 0,
      held: JSON.stringify(movement),
      createdAt: new Date(),
    })
    .execute()
}

async function finding(txHash: string, status: 'open' | 'external') {
  await database.db
    .insertInto('platformTransferFindings')
    .values({
      id: newId(),
      chainId: CHAIN,
      txHash,
      address: ADDRESS,
      ownerKind: 'user',
      ownerId: newId(),
      coin: 'avax',
      amount: '1',
      toAddress: null,
      gasCoin: 'avax',
      gasFee: '1',
      blockNumber: 1,
      detectedAt: new Date(),
      ...(status === 'open'
        ? {}
        : { status, resolvedAt: new Date(), resolvedBy: 'test', resolveReason: 'judged external' }),
    })
    .execute()
}

const heldHashes = async (limit: number, halted: string[] = []) =>
  (await watcherRepo.held(database.db, CHAIN, halted, limit)).map((h) => h.txHash)

describe('the parked backlog', () => {
  it('leaves out the movements of open findings in the query, so those behind them are read', async () => {
    // Ten movements of a transaction still to be judged, oldest; then two that are due.
    const open = hashOf(1)
    await finding(open, 'open')
    for (let block = 10; block < 20; block++) await park(open, block)
    const judged = hashOf(2)
    await finding(judged, 'external')
    await park(judged, 30)
    const plain = hashOf(3)
    await park(plain, 31)
    await park(hashOf(4), 32, 'usdc')

    // A batch of two: the open finding's ten would have filled it; the due ones are read instead.
    expect(await heldHashes(2)).toEqual([judged, plain])
    expect(await heldHashes(100)).toEqual([judged, plain, hashOf(4)])
    // Halted coins are still left out as before.
    expect(await heldHashes(100, ['usdc'])).toEqual([judged, plain])
    // Resolved, the finding's movements are due again, in chain order.
    await database.db
      .updateTable('platformTransferFindings')
      .set({ status: 'external', resolvedAt: new Date(), resolvedBy: 'test', resolveReason: 'judged' })
      .where('txHash', '=', open)
      .execute()
    expect(await heldHashes(3)).toEqual([open, open, open])
  })
})
