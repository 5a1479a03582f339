// Payment configuration reads (coins and rates come from memory) and the devnet's raw speed:
// signed native transfers broadcast and mined one after another through the chain adapter.
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const user = await ctx.createUser()
  const auth = { authorization: `Bearer ${user.token}` }
  return [
    { name: 'GET /v1/payment/coins', path: '/v1/payment/coins', headers: auth },
    { name: 'GET /v1/transaction/exchange', path: '/v1/transaction/exchange', headers: auth },
    {
      name: 'devnet: sign + broadcast + receipt, sequential native transfers',
      async run(): Promise<Record<string, number | string>> {
        const chain = ctx.app.services.chain
        const payer = chain.devnet?.accounts[10]
        if (!payer) return { skipped: 'not on the devnet' }
        const count = 200
        let nonce = await chain.getNonce(payer.address)
        const fees = await chain.estimateFees()
        const started = performance.now()
        for (let i = 0; i < count; i++) {
          const signed = await chain.signTransfer(payer.privateKey, {
            coin: 'avax',
            to: '0x000000000000000000000000000000000000dEaD',
            amount: 1n,
            nonce: nonce++,
            gas: 21_000n,
            fees,
          })
          await chain.broadcast(signed.raw)
          await chain.getReceipt(signed.hash)
        }
        const ms = performance.now() - started
        return {
          transfers: count,
          transfersPerSec: Math.round((count / ms) * 1000),
          msPerTransfer: +(ms / count).toFixed(2),
        }
      },
    },
  ]
}
