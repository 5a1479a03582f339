// Snapshots through the API on the real dev chain: an operator's snapshot, the published views,
// a user's proof that leads to the signed root, the tables that never change, the permissions.
import { verifyMessage } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leafHash, rootFrom } from '../../src/modules/reserves/merkle.ts'
import { adminEnv, createAdmin, expectError, expectOk, runId } from '../admin/helpers.ts'
import { initiate, post } from '../escrow/helpers.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { AVAX, sendFrom, USDC, walletAddress } from '../helpers/money.ts'

let t: TestApp
const run = runId()
let admin: TestUser
let alice: TestUser
let bob: TestUser

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run)
  alice = await createUser(t)
  bob = await createUser(t)
  const from = t.app.services.chain.devnet!.accounts[3]!
  await t.app.services.chain.devnet!.fund(from.address, 'usdc', 1000n * USDC)
  await sendFrom(t, from, await walletAddress(t, alice), 'usdc', 125n * USDC)
  await sendFrom(t, from, await walletAddress(t, bob), 'avax', 2n * AVAX)
  // an escrow alice funds for bob, paid from outside
  const q = await initiate(t, alice, bob, { amount: 20 })
  await sendFrom(t, from, q.address, 'avax', BigInt(q.amountToPayBaseUnits))
  const v = await post(t, alice, '/v1/escrow/validate', { escrowId: q.escrowId })
  expect(v.json().data.status, v.body).toBe('paid')
  await t.app.services.settlement.watcher.scanNow()
  await t.drain()
})
afterAll(() => t?.close())

async function snapshot() {
  const res = await t.req({
    method: 'POST',
    url: '/v1/admin/reserves/snapshot',
    token: admin.token,
    payload: { reason: 'test attestation' },
  })
  return expectOk(res).snapshots as any[]
}

describe('proof-of-reserves snapshots', () => {
  it('an operator takes one snapshot per coin at one block, signed by the attestation key', async () => {
    const taken = await snapshot()
    const coins = t.app.services.chain.coins.map((c) => c.reference).sort()
    expect(taken.map((s) => s.coin).sort()).toEqual(coins)
    expect(new Set(taken.map((s) => s.block)).size).toBe(1)
    expect(new Set(taken.map((s) => s.runId)).size).toBe(1)
    for (const s of taken) {
      expect(s.trigger).toBe('operator')
      expect(
        await verifyMessage({ address: s.attestationAddress, message: s.message, signature: s.signature }),
      ).toBe(true)
      expect(BigInt(s.reservesTotal)).toBeGreaterThanOrEqual(BigInt(s.liabilitiesTotal))
    }
    const usdc = taken.find((s) => s.coin === 'usdc')
    expect(BigInt(usdc.liabilitiesTotal)).toBeGreaterThanOrEqual(125n * USDC)
    const latest = expectOk(await t.req({ method: 'GET', url: '/v1/reserves' })).snapshots
    expect(latest.map((s: any) => s.id).sort()).toEqual(taken.map((s) => s.id).sort())
  })

  it('publishes the reserve addresses, each signing the message with its own key', async () => {
    const [s] = expectOk(await t.req({ method: 'GET', url: '/v1/reserves' })).snapshots.filter(
      (x: any) => x.coin === 'avax',
    )
    const detail = expectOk(await t.req({ method: 'GET', url: `/v1/reserves/${s.id}` }))
    expect(detail.reserves.length).toBeGreaterThan(0)
    let total = 0n
    for (const r of detail.reserves) {
      total += BigInt(r.balance)
      expect(await verifyMessage({ address: r.address, message: s.message, signature: r.signature })).toBe(
        true,
      )
      const onChain = await t.app.services.chain.balanceOf(r.address, 'avax', BigInt(s.block))
      expect(onChain).toBe(BigInt(r.balance))
    }
    expect(total.toString()).toBe(detail.reservesTotal)
  })

  it('gives a user their wallet and escrow leaves, whose paths lead to the signed root', async () => {
    const latest = expectOk(await t.req({ method: 'GET', url: '/v1/reserves' })).snapshots
    const avax = latest.find((s: any) => s.coin === 'avax')
    const proof = expectOk(
      await t.req({ method: 'GET', url: `/v1/reserves/${avax.id}/proof`, token: alice.token }),
    )
    expect(proof.snapshot.root).toBe(avax.root)
    const kinds = proof.leaves.map((l: any) => l.kind).sort()
    expect(kinds).toEqual(['escrow', 'wallet'])
    for (const l of proof.leaves) {
      const hash = leafHash({
        id: l.id,
        balance: BigInt(l.balance),
        salt: Buffer.from(l.salt.slice(2), 'hex'),
      })
      expect(`0x${hash.toString('hex')}`).toBe(l.hash)
      const root = rootFrom(
        { hash, sum: BigInt(l.balance) },
        l.path.map((p: any) => ({
          side: p.side,
          hash: Buffer.from(p.hash.slice(2), 'hex'),
          sum: BigInt(p.sum),
        })),
      )
      expect(`0x${root.hash.toString('hex')}`).toBe(avax.root)
      expect(root.sum.toString()).toBe(avax.liabilitiesTotal)
    }
    expect(proof.leaves.find((l: any) => l.kind === 'wallet').id).toBe(`user:${alice.id}`)
    // bob is paid from the same escrow: it is in his proof too
    const bobs = expectOk(
      await t.req({ method: 'GET', url: `/v1/reserves/${avax.id}/proof`, token: bob.token }),
    )
    expect(bobs.leaves.map((l: any) => l.kind).sort()).toEqual(['escrow', 'wallet'])
    expect(bobs.leaves.find((l: any) => l.kind === 'wallet').balance).toBe((2n * AVAX).toString())
  })

  it('never changes a stored snapshot', async () => {
    await expect(
      t.database.db.updateTable('reserveSnapshots').set({ reservesTotal: '1' }).execute(),
    ).rejects.toThrow(/never changed/)
    await expect(t.database.db.deleteFrom('reserveNodes').execute()).rejects.toThrow(/never changed/)
  })

  it('lists earlier snapshots newest first', async () => {
    await snapshot()
    const h = expectOk(await t.req({ method: 'GET', url: '/v1/reserves/history?coin=usdc' })).snapshots
    expect(h.length).toBe(2)
    expect(h[0].takenAt >= h[1].takenAt).toBe(true)
  })

  it('refuses a proof without a token, an unknown snapshot, and a snapshot to non-admins', async () => {
    const [s] = expectOk(await t.req({ method: 'GET', url: '/v1/reserves' })).snapshots
    expectError(await t.req({ method: 'GET', url: `/v1/reserves/${s.id}/proof` }), 401, 'UNAUTHENTICATED')
    expectError(
      await t.req({ method: 'GET', url: `/v1/reserves/${'0'.repeat(24)}/proof`, token: alice.token }),
      404,
      'NOT_FOUND',
    )
    expectError(await t.req({ method: 'GET', url: `/v1/reserves/${'0'.repeat(24)}` }), 404, 'NOT_FOUND')
    expectError(
      await t.req({
        method: 'POST',
        url: '/v1/admin/reserves/snapshot',
        token: alice.token,
        payload: { reason: 'x y z' },
      }),
      403,
      'FORBIDDEN',
    )
  })
})

describe('proof-of-reserves metrics', () => {
  it('exports the ratio, the shortfall alarm and the snapshot time per coin', async () => {
    const res = await t.req({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    expect(res.body).toMatch(/workpay_reserves_ratio\{coin="usdc"\} 1(\.\d+)?\n/)
    expect(res.body).toMatch(/workpay_reserves_shortfall\{coin="usdc"\} 0\n/)
    expect(res.body).toMatch(/workpay_reserves_snapshot_timestamp_seconds\{coin="avax"\} \d+/)
  })
})

describe('the scheduled snapshot', () => {
  it('runs once per interval as a durable job and queues the next', async () => {
    t.clock.advance(t.config.reservesSnapshotIntervalMs + 60_000)
    await t.drain()
    const h = expectOk(await t.req({ method: 'GET', url: '/v1/reserves/history?coin=avax' })).snapshots
    expect(h[0].trigger).toBe('schedule')
    const queued = await t.database.db
      .selectFrom('jobs')
      .select(['runAt'])
      .where('kind', '=', 'reserves.snapshot')
      .where('status', '=', 'queued')
      .execute()
    expect(queued).toHaveLength(1)
    expect(queued[0]!.runAt.getTime()).toBeGreaterThan(t.clock.now().getTime())
  })
})
