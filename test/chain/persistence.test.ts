// The devnet keeps its state across restarts by replaying its journal on the same genesis: once
// with a journal file (the tool-level devnet), once through the app, whose journal lives in the
// database (both drivers). Each restart opens a new devnet (about a second each).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { builtinCoinsConfig } from '../../src/platform/chain/coins-config.ts'
import { openDevnet } from '../../src/platform/chain/devnet.ts'
import { fileJournal } from '../../src/platform/chain/journal.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { openTestDatabase, TEST_ENV } from '../helpers/app.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-devnet-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('devnet persistence', () => {
  it('with a journal file: balances, history and token addresses survive close and reopen', async () => {
    const journal = fileJournal(join(dir, 'journal.jsonl'))
    const to = privateKeyToAccount(generatePrivateKey()).address
    const first = await openDevnet({ ...builtinCoinsConfig(), journal })
    const payer = first.devnet!.accounts[2]!
    const native = await first.signTransfer(payer.privateKey, {
      coin: 'avax',
      to,
      amount: 123n,
      nonce: await first.getNonce(payer.address),
    })
    await first.broadcast(native.raw)
    const token = await first.treasury.send({ coin: 'usdc', to, amount: 456n })
    await first.devnet!.fund(to, 'usdc', 1000n)
    await first.devnet!.mine(2)
    const head = await first.blockNumber()
    const usdc = first.coin('usdc').contractAddress
    const treasuryUsdc = await first.balanceOf(first.treasury.address, 'usdc')
    await first.close()

    const second = await openDevnet({ ...builtinCoinsConfig(), journal })
    try {
      expect(second.coin('usdc').contractAddress).toBe(usdc)
      expect(await second.balances(to)).toEqual({ avax: 123n, usdc: 1456n })
      expect(await second.balanceOf(second.treasury.address, 'usdc')).toBe(treasuryUsdc)
      expect(await second.blockNumber()).toBe(head)
      expect((await second.getReceipt(native.hash))?.status).toBe('success')
      expect((await second.getReceipt(token.hash))?.status).toBe('success')
      expect(await second.getNonce(payer.address)).toBe(native.nonce + 1)
      // an old signed transaction is still "already done"
      expect(await second.broadcast(native.raw)).toBe(native.hash)
    } finally {
      await second.close()
    }
  })

  it('without a journal the devnet starts from genesis every time', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address
    const a = await openDevnet(builtinCoinsConfig())
    await a.devnet!.fund(to, 'avax', 5n)
    await a.close()
    const b = await openDevnet(builtinCoinsConfig())
    expect(await b.balanceOf(to, 'avax')).toBe(0n)
    await b.close()
  })

  it('in the app: the journal is in the database, so the chain matches the database after a restart', async () => {
    const database = await openTestDatabase()
    const config = loadConfig(TEST_ENV)
    const to = privateKeyToAccount(generatePrivateKey()).address
    try {
      const app1 = await buildApp({ config, database, clock: new ManualClock(), logger: false })
      await app1.ready()
      const chain1 = app1.services.chain
      const payer = chain1.devnet!.accounts[3]!
      const signed = await chain1.signTransfer(payer.privateKey, {
        coin: 'usdc',
        to,
        amount: 0n,
        nonce: 0,
        gas: 60_000n,
      })
      await chain1.devnet!.fund(to, 'avax', 10n ** 18n)
      await chain1.devnet!.fund(to, 'usdc', 2_000_000n)
      await chain1.broadcast(signed.raw)
      const coinsBefore = await app1.services.coins.list()
      await app1.close()

      const app2 = await buildApp({ config, database, clock: new ManualClock(), logger: false })
      await app2.ready()
      try {
        const chain2 = app2.services.chain
        expect(await chain2.balances(to)).toEqual({ avax: 10n ** 18n, usdc: 2_000_000n })
        expect((await chain2.getReceipt(signed.hash))?.status).toBe('success')
        expect((await app2.services.coins.list()).map((c) => c.record)).toEqual(
          coinsBefore.map((c) => c.record),
        )
      } finally {
        await app2.close()
      }
    } finally {
      await database.close()
    }
  })
})
