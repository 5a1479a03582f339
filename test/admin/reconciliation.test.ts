// Reconciliation for operators: a run on demand (clean on a fresh ledger), the report with its
// per-coin totals, and a coin halted by hand and resumed, each audited.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import type { TestUser } from '../helpers/factories.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId } from './helpers.ts'

let t: TestApp
const run = runId()
let admin: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
})
afterAll(async () => {
  await t?.close()
})

const post = (url: string, payload: object) => t.req({ method: 'POST', url, payload, token: admin.token })

describe('reconciliation', () => {
  it('runs now, and the report shows the run and the halts', async () => {
    const ran = expectOk(await post('/v1/admin/reconciliation/run', { reason: 'daily check' }))
    expect(ran).toMatchObject({ status: 'ok', halted: [], violations: [], error: null })
    expect(ran.coins.map((c: any) => c.coin)).toEqual(expect.arrayContaining(['avax', 'usdc']))
    const report = expectOk(
      await t.req({ method: 'GET', url: '/v1/admin/reconciliation?limit=5', token: admin.token }),
    )
    expect(report.halts).toEqual([])
    expect(report.runs[0]).toMatchObject({ id: ran.id, status: 'ok' })
    expect(report.runs[0].coins[0]).toMatchObject({ drift: '0' })
    const [row] = await auditRows(t, 'reconciliation.run')
    expect(row).toMatchObject({ actorId: admin.id, targetId: ran.id, reason: 'daily check' })
    expect(row!.details).toEqual({ status: 'ok', halted: [] })
  })

  it('halts a coin by hand and resumes it', async () => {
    const halted = expectOk(await post('/v1/admin/coins/USDC/halt', { reason: 'issuer incident' }))
    expect(halted).toMatchObject({ coin: 'usdc', reason: 'manual', haltedBy: admin.id })
    expect(await t.app.services.settlement.halts.isHalted('usdc')).toBe(true)
    expectError(await post('/v1/admin/coins/usdc/halt', { reason: 'again' }), 409, 'COIN_ALREADY_IN_STATE')
    expectError(await post('/v1/admin/coins/doge/halt', { reason: 'unknown' }), 400, 'VALIDATION_ERROR')
    const report = expectOk(
      await t.req({ method: 'GET', url: '/v1/admin/reconciliation', token: admin.token }),
    )
    expect(report.halts.map((h: any) => h.coin)).toEqual(['usdc'])

    expectOk(await post('/v1/admin/coins/usdc/resume', { reason: 'issuer fixed it' }))
    expect(await t.app.services.settlement.halts.isHalted('usdc')).toBe(false)
    expectError(await post('/v1/admin/coins/usdc/resume', { reason: 'again' }), 404, 'NOT_FOUND')
    const rows = (await auditRows(t)).filter((r) => r.targetType === 'coin')
    expect(rows.map((r) => [r.action, r.targetId, r.reason])).toEqual([
      ['coin.halt', 'usdc', 'issuer incident'],
      ['coin.resume', 'usdc', 'issuer fixed it'],
    ])
  })
})
