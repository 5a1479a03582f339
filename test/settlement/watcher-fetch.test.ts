// The watcher reads the chain through the adapter only, each block once per pass: counted on a
// watcher whose adapter records every call (and refuses the raw client). Both database drivers.
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DepositWatcher } from '../../src/modules/settlement/watcher/job.ts'
import type { ChainAdapter } from '../../src/platform/chain/types.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser } from '../helpers/factories.ts'
import { expectLedgerConsistent } from '../helpers/ledger.ts'
import { AVAX, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

interface Calls {
  getBlock: bigint[]
  tokenTransfers: [bigint, bigint][]
  getReceipt: string[]
  other: string[]
}

/** The app's adapter, recording the calls the watcher makes; the raw client is off limits. */
function counting(chain: ChainAdapter): { adapter: ChainAdapter; calls: Calls } {
  const calls: Calls = { getBlock: [], tokenTransfers: [], getReceipt: [], other: [] }
  const adapter = new Proxy(chain, {
    get(target, prop, receiver) {
      if (prop === 'client') throw new Error('the raw chain client was used past the adapter')
      const value = Reflect.get(target, prop, receiver)
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        if (prop === 'getBlock') calls.getBlock.push(args[0] as bigint)
        else if (prop === 'tokenTransfers') calls.tokenTransfers.push([args[0] as bigint, args[1] as bigint])
        else if (prop === 'verifiedTokenTransfers') {
          // the range's blocks as read, checked against their blooms: one range read
          const blocks = args[0] as { number: bigint }[]
          calls.tokenTransfers.push([blocks[0]!.number, blocks[blocks.length - 1]!.number])
        } else if (prop === 'getReceipt') calls.getReceipt.push(String(args[0]))
        else calls.other.push(String(prop))
        return value.apply(target, args)
      }
    },
  })
  return { adapter, calls }
}

describe('one watcher pass', () => {
  it('reads each block once, token logs once per range, receipts only of transactions that matter', async () => {
    const s = t.app.services
    await s.settlement.watcher.scanNow()
    const start = (await s.settlement.watcher.cursor())!.number
    const user = await createUser(t)
    const address = await walletAddress(t, user)
    const outsider = s.chain.devnet!.accounts[3]!
    await s.chain.devnet!.fund(outsider.address, 'usdc', 100n * USDC)
    await sendFrom(t, outsider, address, 'avax', AVAX)
    await sendFrom(t, outsider, address, 'usdc', 7n * USDC)
    // transactions that concern no custodial address
    await sendFrom(t, outsider, s.chain.devnet!.accounts[4]!.address, 'avax', AVAX)
    await s.chain.devnet!.mine(4)
    const head = await s.chain.blockNumber()

    const { adapter, calls } = counting(s.chain)
    const watcher = new DepositWatcher(
      {
        database: t.database,
        chain: adapter,
        clock: t.clock,
        log: t.app.log as never,
        jobs: s.jobs,
        ledger: s.ledger,
        transactions: s.transactions,
        halts: s.settlement.halts,
        confirmations: t.config.confirmations,
      },
      { batchBlocks: 3 },
    )
    const result = await watcher.scanNow()
    expect(result).toMatchObject({ leader: true, cursor: head })
    const range = Array.from({ length: Number(head - start) }, (_, i) => start + 1n + BigInt(i))
    expect([...calls.getBlock].sort((a, b) => (a < b ? -1 : 1))).toEqual(range)
    // ranges of at most 3 blocks, back to back, each read for logs once
    expect(calls.tokenTransfers[0]![0]).toBe(start + 1n)
    expect(calls.tokenTransfers.at(-1)![1]).toBe(head)
    for (const [i, [from, to]] of calls.tokenTransfers.entries()) {
      expect(to - from).toBeLessThan(3n)
      if (i > 0) expect(from).toBe(calls.tokenTransfers[i - 1]![1] + 1n)
    }
    // the two deposits' transactions only (the mint went to the outsider, the last to another)
    expect(new Set(calls.getReceipt).size).toBe(calls.getReceipt.length)
    expect(calls.getReceipt).toHaveLength(2)
    expect(calls.other).not.toContain('nativeTransfers')
    expect(await s.ledger.balance(t.database.db, 'user', user.id, 'avax')).toBe(AVAX)
    expect(await s.ledger.balance(t.database.db, 'user', user.id, 'usdc')).toBe(7n * USDC)

    // A pass with nothing new reads one block: the one at the cursor, to see it is still there.
    calls.getBlock.length = 0
    await watcher.scanNow()
    expect(calls.getBlock).toEqual([head])
    await expectLedgerConsistent(t.database.db, { chain: s.chain })
  })

  it('asks the database only for the addresses the blocks touch', async () => {
    const s = t.app.services
    await s.settlement.watcher.scanNow()
    const user = await createUser(t)
    const address = (await walletAddress(t, user)).toLowerCase()
    const queries: string[] = []
    const db = t.database.db.withPlugin({
      transformQuery(args) {
        const node = args.node as {
          kind: string
          from?: { froms?: { table?: { identifier?: { name?: string } } }[] }
        }
        const table = node.from?.froms?.[0]?.table?.identifier?.name
        // the query's tree names the table as the code does (the compiler writes it in snake case)
        if (node.kind === 'SelectQueryNode' && table === 'walletKeys') queries.push(JSON.stringify(args.node))
        return args.node
      },
      async transformResult(args) {
        return args.result
      },
    })
    const watcher = new DepositWatcher({
      database: { ...t.database, db },
      chain: s.chain,
      clock: t.clock,
      log: t.app.log as never,
      jobs: s.jobs,
      ledger: s.ledger,
      transactions: s.transactions,
      halts: s.settlement.halts,
      confirmations: t.config.confirmations,
    })
    await sendFrom(t, s.chain.devnet!.accounts[3]!, address, 'avax', AVAX / 10n)
    await watcher.scanNow()
    expect(await s.ledger.balance(t.database.db, 'user', user.id, 'avax')).toBe(AVAX / 10n)
    // every custodial-key lookup is a `where address in (…)` of the range's candidates
    expect(queries.length).toBeGreaterThan(0)
    for (const q of queries) {
      expect(q).toContain('"in"')
      expect(q).toContain(address)
    }
  })

  it('logs one structured line per credited deposit, with its ids and amount', async () => {
    const s = t.app.services
    await s.settlement.watcher.scanNow()
    const user = await createUser(t)
    const address = (await walletAddress(t, user)).toLowerCase()
    const lines: Record<string, unknown>[] = []
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) })
    const watcher = new DepositWatcher({
      database: t.database,
      chain: s.chain,
      clock: t.clock,
      log,
      jobs: s.jobs,
      ledger: s.ledger,
      transactions: s.transactions,
      halts: s.settlement.halts,
      confirmations: t.config.confirmations,
    })
    await sendFrom(t, s.chain.devnet!.accounts[3]!, address, 'usdc', 2n * USDC)
    await watcher.scanNow()
    await watcher.scanNow()
    const credited = lines.filter((l) => l.event === 'deposit.credited')
    expect(credited).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'deposit credited',
        coin: 'usdc',
        amount: (2n * USDC).toString(),
        address,
        ownerKind: 'user',
        ownerId: user.id,
        transferId: expect.stringMatching(/^[0-9a-f]{24}$/),
        accountId: expect.stringMatching(/^[0-9a-f]{24}$/),
        transactionId: expect.stringMatching(/^[0-9a-f]{24}$/),
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      }),
    ])
    // Exactly these fields: ids and amounts, nothing else (never a key).
    expect(Object.keys(credited[0]!).sort()).toEqual(
      [
        'accountId',
        'address',
        'amount',
        'chainId',
        'coin',
        'event',
        'hostname',
        'level',
        'logIndex',
        'msg',
        'ownerId',
        'ownerKind',
        'pid',
        'time',
        'transactionId',
        'transferId',
        'txHash',
      ].sort(),
    )
  })
})
