// Wallet reads (balances from the ledger + rates), the transaction list, raw ledger transfer
// throughput, and the deposit watcher crediting a burst of on-chain deposits.
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  // A funded wallet (minted on the dev chain and credited by the watcher) and 200 transactions
  // to list.
  const user = await ctx.fundedUser(1_000_000_000_000n)
  const holdCount = ctx.quick ? 200 : 500
  const auth = { authorization: `Bearer ${user.token}` }
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < 200; i++) {
      await s.transactions.record(tx, {
        ownerId: user.id,
        coin: 'usdc',
        amount: BigInt(i + 1) * 1_000_000n,
        type: i % 2 ? 'withdrawal' : 'deposit',
        method: 'transfer',
        status: 'completed',
        rate: '1',
      })
    }
  })

  return [
    { name: 'GET /v1/wallet', path: '/v1/wallet', headers: auth },
    { name: 'GET /v1/wallet/coin/usdc', path: '/v1/wallet/coin/usdc', headers: auth },
    { name: 'GET /v1/transaction (200 rows, page 1)', path: '/v1/transaction', headers: auth },
    {
      name: `ledger: ${holdCount} holds, 10 in flight on one hot balance`,
      async run() {
        const wallet = await s.ledger.ensureAccount(db, 'user', user.id, 'usdc')
        const count = holdCount
        let next = 0
        const ids: string[] = []
        const started = performance.now()
        const worker = async () => {
          while (next < count) {
            const i = next++
            const hold = await db.transaction().execute((tx) =>
              s.ledger.hold(tx, {
                key: `bench:hold:${user.id}:${i}`,
                coin: 'usdc',
                account: wallet,
                amount: 1n,
              }),
            )
            ids.push(hold.id)
          }
        }
        await Promise.all(Array.from({ length: 10 }, worker))
        const ms = performance.now() - started
        // Not measured: the holds are voided again, so that no pending hold without an owner (a
        // transfer that reserves it) is left for the reconciliation after the run.
        for (const id of ids)
          await db.transaction().execute((tx) => s.ledger.void(tx, { hold: id, key: `bench:void:${id}` }))
        return { holds: count, holdsPerSec: Math.round((count / ms) * 1000) }
      },
    },
    {
      name: 'watcher: credit 100 token deposits',
      async run(): Promise<Record<string, number | string>> {
        const chain = s.chain
        const payer = chain.devnet?.accounts[11]
        if (!payer) return { skipped: 'not on the devnet' }
        const target = await ctx.createUser()
        const key = await s.keys.find(db, 'user', target.id)
        if (!key) return { skipped: 'no wallet' }
        await chain.devnet!.fund(payer.address, 'usdc', 1_000_000_000n)
        await s.settlement.watcher.scanNow()
        // From the first broadcast until all 100 are credited (the worker's watcher job or
        // this scan, whichever gets there first).
        const started = performance.now()
        let nonce = await chain.getNonce(payer.address)
        for (let i = 0; i < 100; i++) {
          const signed = await chain.signTransfer(payer.privateKey, {
            coin: 'usdc',
            to: key.address,
            amount: 1_000_000n,
            nonce: nonce++,
          })
          await chain.broadcast(signed.raw)
        }
        const broadcastMs = performance.now() - started
        while ((await s.ledger.balance(db, 'user', target.id, 'usdc')) < 100_000_000n) {
          if (performance.now() - started > 120_000) return { error: 'not credited within 120 s' }
          await s.settlement.watcher.scanNow()
        }
        const ms = performance.now() - started
        return {
          deposits: 100,
          broadcastMs: Math.round(broadcastMs),
          creditedAfterMs: Math.round(ms),
          depositsPerSec: Math.round((100 / ms) * 1000),
        }
      },
    },
  ]
}
