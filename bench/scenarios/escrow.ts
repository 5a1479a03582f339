// Escrow: quotes per second (#13: key generation, collection, escrow row in one transaction),
// validation (#14, a chain scan per call), and releases processed end to end on the dev chain
// (three on-chain legs each, gas top-ups, receipts, the watcher crediting the receivers): 20
// escrows, 5 with --quick.
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const payer = await ctx.createUser()
  const receiver = await ctx.createUser()
  const auth = { authorization: `Bearer ${payer.token}` }
  const body = (amount: number) => ({
    title: 'Bench job',
    description: 'benchmark escrow',
    amount,
    coin: 'usdc',
    receiverId: receiver.id,
  })
  const initiate = async (amount: number) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/v1/escrow/initiate',
      headers: auth,
      payload: body(amount),
    })
    if (res.statusCode !== 200) throw new Error(`initiate failed: ${res.body}`)
    return res.json().data as { escrowId: string; address: string; amountToPayBaseUnits: string }
  }
  const probe = await initiate(10)
  const releases = ctx.quick ? 5 : 20

  return [
    {
      name: 'POST /v1/escrow/initiate',
      method: 'POST',
      path: '/v1/escrow/initiate',
      headers: auth,
      body: body(25),
      connections: 10,
    },
    {
      name: 'POST /v1/escrow/validate (chain scan per call)',
      method: 'POST',
      path: '/v1/escrow/validate',
      headers: auth,
      body: { escrowId: probe.escrowId },
      connections: 10,
    },
    {
      name: `escrow releases end to end: ${releases} paid escrows released until every leg is on chain`,
      async run() {
        if (!s.chain.devnet) throw new Error('the escrow benchmark needs the dev chain')
        const count = releases
        const quotes = []
        for (let i = 0; i < count; i++) quotes.push(await initiate(10 + i))
        for (const q of quotes) await s.chain.devnet.fund(q.address, 'usdc', BigInt(q.amountToPayBaseUnits))
        await s.settlement.watcher.scanNow()
        const started = performance.now()
        let accepted = 0
        for (const q of quotes) {
          const res = await ctx.app.inject({
            method: 'POST',
            url: '/v1/escrow/release',
            headers: auth,
            payload: { escrowId: q.escrowId },
          })
          if (res.statusCode === 200) accepted++
        }
        const ids = quotes.map((q) => q.escrowId)
        const deadline = Date.now() + 180_000
        let released = 0
        for (;;) {
          const row = await db
            .selectFrom('escrows')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('id', 'in', ids)
            .where('status', '=', 'released')
            .executeTakeFirstOrThrow()
          released = Number(row.n)
          if (released === count || Date.now() > deadline) break
          await new Promise((r) => setTimeout(r, 100))
        }
        const ms = performance.now() - started
        return {
          escrows: count,
          accepted,
          released,
          seconds: Math.round(ms) / 1000,
          releasesPerSec: Math.round((released / ms) * 10_000) / 10,
          legsPerSec: Math.round(((released * 3) / ms) * 10_000) / 10,
        }
      },
    },
  ]
}
