// The devnet journal's compaction on the database (both drivers): the journal and the hashes the
// service keeps are replaced in one transaction, so a compaction that dies before its commit
// leaves the old journal, and the chain a restart rebuilds, as they were.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { journalCompaction } from '../../src/modules/payment/module.ts'
import { dbJournal } from '../../src/modules/payment/repo.ts'
import { chainHistory } from '../../src/modules/settlement/chain-history.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { isState } from '../../src/platform/chain/devnet-compaction.ts'
import { openTestDatabase } from '../helpers/app.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-compaction-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('devnet journal compaction on the database', () => {
  it('a compaction that fails before its commit leaves the old journal intact', {
    timeout: 120_000,
  }, async () => {
    const database = await openTestDatabase()
    const db = database.db
    try {
      const journal = dbJournal(db)
      const history = chainHistory(db)
      let failNext = true
      // the fault: the process "dies" after the journal rows were replaced, before the commit
      const faulty = {
        ...history,
        rebase: async (...args: Parameters<typeof history.rebase>) => {
          await history.rebase(...args)
          if (failNext) throw new Error('simulated crash before commit')
        },
      }
      const compaction = journalCompaction(db, faulty)
      const to = privateKeyToAccount(generatePrivateKey()).address
      const first = await openDevnet({ ...builtinCoinsConfig(), journal, compaction })
      const payer = first.devnet!.accounts[8]!
      await first.broadcast(
        (
          await first.signTransfer(payer.privateKey, {
            coin: 'avax',
            to,
            amount: 4242n,
            nonce: await first.getNonce(payer.address),
          })
        ).raw,
      )
      await first.devnet!.fund(to, 'usdc', 31n)
      const head = await first.blockNumber()
      await db
        .insertInto('chainCursors')
        .values({
          chainId: '31337',
          blockNumber: Number(head),
          blockHash: (await first.getBlock(head))!.hash,
          updatedAt: new Date(),
        })
        .execute()
      const before = await journal.load()

      await expect(first.devnet!.compact()).rejects.toThrow(/simulated crash/)
      expect(await journal.load()).toEqual(before)

      // the devnet goes on, and a later compaction that commits replaces the journal
      await first.devnet!.fund(to, 'usdc', 1n)
      failNext = false
      expect(await first.devnet!.compact()).toEqual({ base: head })
      const after = await journal.load()
      expect(isState(after[0])).toBe(true)
      expect(after.length).toBeLessThan(before.length)
      const newHead = await first.blockNumber()
      await first.close()

      // the restart rebuilds the chain from the compacted journal and rebases the cursor's hash
      const second = await openDevnet({ ...builtinCoinsConfig(), journal, compaction })
      try {
        expect(await second.blockNumber()).toBe(newHead)
        expect(await second.balances(to)).toEqual({ avax: 4242n, usdc: 32n })
        const cursor = await db.selectFrom('chainCursors').selectAll().executeTakeFirstOrThrow()
        expect(cursor.blockHash).toBe((await second.getBlock(head))!.hash)
      } finally {
        await second.close()
      }
    } finally {
      await database.close()
    }
  })
})
