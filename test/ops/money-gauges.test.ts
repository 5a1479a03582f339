// The money gauges of /metrics: every coin's series present at 0 from the start, the gas wallet's
// balance read from the chain, value in escrow, custody at the latest reconciliation, a halted coin
// reading 1 and back to 0 on resume, open disputes and failing webhook deliveries. Each figure is
// checked against what the test put there itself, not against the query that computes it.
import { sql } from 'kysely'
import { formatUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AVAX, initiate, post, sendFrom } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { type Sample, sampleValue, scrape } from './prometheus.ts'

let t: TestApp
let payer: TestUser
let receiver: TestUser
beforeAll(async () => {
  t = await createTestApp()
  payer = await createUser(t)
  receiver = await createUser(t)
})
afterAll(() => t?.close())

const metrics = async (): Promise<Sample[]> => {
  const res = await t.req({ method: 'GET', url: '/metrics' })
  expect(res.statusCode, res.body).toBe(200)
  return scrape(res)
}

describe('money gauges', () => {
  it('are present at 0 for every coin before anything moved', async () => {
    const s = await metrics()
    const coins = t.app.services.chain.coins.map((c) => c.reference)
    expect(coins.length).toBeGreaterThan(1)
    for (const coin of coins) {
      expect(sampleValue(s, 'workpay_escrow_balance', { coin }), coin).toBe(0)
      expect(sampleValue(s, 'workpay_coin_halted', { coin }), coin).toBe(0)
    }
    expect(sampleValue(s, 'workpay_disputes_open', {})).toBe(0)
    expect(sampleValue(s, 'workpay_webhook_deliveries_failed', {})).toBe(0)
    expect(sampleValue(s, 'workpay_webhook_deliveries_retrying', {})).toBe(0)
  })

  it("reads the gas wallet's native balance from the chain", async () => {
    const chain = t.app.services.chain
    const native = chain.coins.find((c) => !c.isToken)!
    const wei = await chain.client.getBalance({ address: chain.gasWallet.address })
    expect(wei).toBeGreaterThan(0n)
    const s = await metrics()
    expect(
      sampleValue(s, 'workpay_gas_wallet_balance', { chain: String(chain.chainId), coin: native.reference }),
    ).toBeCloseTo(Number(formatUnits(wei, native.decimals)), 6)
  })

  it('shows the value an escrow holds once it is paid', async () => {
    const q = await initiate(t, payer, receiver, { amount: 40 })
    await sendFrom(
      t,
      t.app.services.chain.devnet!.accounts[2]!,
      q.address,
      'avax',
      BigInt(q.amountToPayBaseUnits),
    )
    expect((await post(t, payer, '/v1/escrow/validate', { escrowId: q.escrowId })).json().data.status).toBe(
      'paid',
    )
    const s = await metrics()
    expect(sampleValue(s, 'workpay_escrow_balance', { coin: 'avax' })).toBeCloseTo(
      Number(BigInt(q.amountToPayBaseUnits)) / Number(AVAX),
      9,
    )
    expect(sampleValue(s, 'workpay_escrow_balance', { coin: 'usdc' })).toBe(0)
  })

  it('shows custody at the latest reconciliation, per coin', async () => {
    const db = t.database.db
    const at = new Date(Date.now() + 3_600_000)
    await sql`
      insert into reconciliation_runs (id, chain_id, status, block_number, started_at, finished_at)
      values ('ops0gauge0custody0000001', '31337', 'ok', 1, ${at}, ${at})`.execute(db)
    await sql`
      insert into reconciliation_results (run_id, coin, ledger_total, chain_total, drift, addresses_checked,
        addresses_skipped)
      values ('ops0gauge0custody0000001', 'usdc', 12500000, 12500000, 0, 2, 0)`.execute(db)
    const s = await metrics()
    expect(sampleValue(s, 'workpay_custody_ledger_total', { coin: 'usdc' })).toBe(12.5)
    expect(sampleValue(s, 'workpay_custody_chain_total', { coin: 'usdc' })).toBe(12.5)
  })

  it('reads 1 with its reason while a coin is halted, and 0 again once it is resumed', async () => {
    const db = t.database.db
    await sql`insert into coin_halts (id, coin, reason) values ('ops0gauge0halt0000000001', 'usdc', 'ledger_mismatch')`.execute(
      db,
    )
    let s = await metrics()
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'usdc', reason: 'ledger_mismatch' })).toBe(1)
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'usdc' })).toBeUndefined()
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'avax' })).toBe(0)
    await sql`update coin_halts set cleared_at = now() where id = 'ops0gauge0halt0000000001'`.execute(db)
    s = await metrics()
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'usdc' })).toBe(0)
    expect(sampleValue(s, 'workpay_coin_halted', { coin: 'usdc', reason: 'ledger_mismatch' })).toBeUndefined()
  })

  it('counts webhook deliveries that failed for good or are being retried', async () => {
    const db = t.database.db
    await sql`
      insert into webhook_endpoints (id, owner_id, url, events, secret_sealed, created_at, updated_at)
      values ('ops0gauge0hook0000000001', ${payer.id}, 'https://example.com/hook', '{}', 'x', now(), now())`.execute(
      db,
    )
    const delivery = async (id: string, status: string, attempts: number, updatedAt: Date) => {
      await sql`insert into events (id, type, created_at) values (${id}, 'payment.released', now())`.execute(
        db,
      )
      await sql`
        insert into webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, attempts,
          max_attempts, created_at, updated_at)
        values (${id}, 'ops0gauge0hook0000000001', ${id}, 'payment.released', '{}', ${status}, ${attempts}, 8,
          ${updatedAt}, ${updatedAt})`.execute(db)
    }
    await delivery('ops0gauge0delivery000001', 'failed', 8, new Date())
    await delivery('ops0gauge0delivery000002', 'failed', 8, new Date(Date.now() - 2 * 86_400_000))
    await delivery('ops0gauge0delivery000003', 'pending', 2, new Date())
    await delivery('ops0gauge0delivery000004', 'pending', 0, new Date())
    await delivery('ops0gauge0delivery000005', 'delivered', 1, new Date())
    const s = await metrics()
    expect(sampleValue(s, 'workpay_webhook_deliveries_failed', {})).toBe(1)
    expect(sampleValue(s, 'workpay_webhook_deliveries_retrying', {})).toBe(1)
  })
})
