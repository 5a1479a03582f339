// "Where is my deposit?" on the real dev chain: a hash the chain does not know, a payment to an
// address outside the platform, a deposit the watcher has not read yet (confirming), the same one
// credited (with its user and transfer), and the audited rescan of a block range, which credits
// nothing twice; its refusals (bad range, unknown coin, an address not the platform's) leave no row.
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { walletAddress } from '../helpers/money.ts'
import { AVAX, freshAddress } from '../withdrawals/helpers.ts'
import { adminEnv, auditRows, createAdmin, expectError, expectOk, runId, type TestAdmin } from './helpers.ts'

let t: TestApp
let admin: TestAdmin
let user: TestUser
const run = runId()

beforeAll(async () => {
  t = await createTestApp({ env: adminEnv(run) })
  admin = await createAdmin(t, run, 0)
  user = await createUser(t)
})
afterAll(async () => {
  await t?.close()
})

/** Pays `amount` wei from a dev account to `to`, mined; answers the transaction hash. */
async function pay(to: string, amount: bigint, payerIndex = 5): Promise<Hex> {
  const c = t.app.services.chain
  const from = c.devnet!.accounts[payerIndex]!
  const signed = await c.signTransfer(from.privateKey, {
    coin: 'avax',
    to,
    amount,
    nonce: await c.getNonce(from.address, 'pending'),
  })
  await c.broadcast(signed.raw)
  await c.waitForReceipt(signed.hash)
  return signed.hash
}

const lookup = (hash: string, token = admin.token) =>
  t.req({ method: 'GET', url: `/v1/admin/deposits/${hash}`, token })
const balanceOf = async (u: TestUser) => {
  const res = await t.req({ method: 'GET', url: '/v1/wallet', token: u.token })
  const balance = res.json().data.wallets.find((w: any) => w.id === 'avax')?.amount
  expect(balance).toEqual(expect.any(String))
  return balance as string
}

describe('the deposit lookup', () => {
  it('says when the chain does not know the hash, and when nothing reached a platform address', async () => {
    const unknown = expectOk(await lookup(`0x${'12'.repeat(32)}`))
    expect(unknown).toMatchObject({ outcome: 'unknown', deposits: [], blockNumber: null, confirmations: 0 })
    expect(unknown.explanation).toMatch(/no mined transaction/)

    const elsewhere = await pay(freshAddress(), AVAX / 100n)
    const outside = expectOk(await lookup(elsewhere))
    expect(outside).toMatchObject({ outcome: 'not_custodial', deposits: [] })
    expect(Number(outside.blockNumber)).toBeGreaterThan(0)
    expect(outside.explanation).toMatch(/Nothing in this transaction reached a platform address/)

    expectError(await lookup('0x1234'), 400, 'VALIDATION_ERROR')
  })

  it('follows one deposit from confirming to credited, with its user and ledger transfer', async () => {
    const address = await walletAddress(t, user)
    const hash = await pay(address, AVAX / 4n)
    // Mined, not read by the watcher yet.
    const waiting = expectOk(await lookup(hash))
    expect(waiting.outcome).toBe('found')
    expect(waiting.deposits).toEqual([
      expect.objectContaining({
        address: address.toLowerCase(),
        ownerKind: 'user',
        ownerId: user.id,
        email: user.email,
        coin: 'avax',
        decimals: 18,
        amount: (AVAX / 4n).toString(),
        logIndex: null,
        state: 'confirming',
        transferId: null,
      }),
    ])
    expect(waiting.deposits[0].explanation).toMatch(/confirmations; credited once the watcher reads past it/)

    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    const credited = expectOk(await lookup(hash))
    expect(credited.outcome).toBe('found')
    expect(credited.confirmations).toBeGreaterThanOrEqual(1)
    expect(credited.requiredConfirmations).toBe(String(t.config.confirmations))
    expect(BigInt(credited.watcherBlock)).toBeGreaterThanOrEqual(BigInt(credited.blockNumber))
    const [d] = credited.deposits
    expect(d).toMatchObject({ state: 'credited', email: user.email, amount: (AVAX / 4n).toString() })
    expect(d.transferId).toEqual(expect.any(String))
    expect(d.explanation).toMatch(/^Credited on /)
    const entries = await t.database.db
      .selectFrom('ledgerEntries')
      .select('transferId')
      .where('transferId', '=', d.transferId)
      .execute()
    expect(entries.length).toBeGreaterThanOrEqual(2)
  })
})

describe('the rescan of a block range', () => {
  it('is audited, runs settlement’s rescan job, and credits nothing twice', async () => {
    const address = await walletAddress(t, user)
    const hash = await pay(address, AVAX / 8n)
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    const found = expectOk(await lookup(hash))
    expect(found.deposits[0].state).toBe('credited')
    const before = await balanceOf(user)
    expect(Number(before)).toBeGreaterThan(0)
    const block = found.blockNumber as string

    const res = expectOk(
      await t.req({
        method: 'POST',
        url: '/v1/admin/deposits/rescan',
        token: admin.token,
        payload: {
          address: address.toUpperCase().replace('0X', '0x'),
          coin: 'AVAX',
          fromBlock: String(Number(block) - 1),
          toBlock: block,
          reason: 'Support ticket 5120: deposit not credited',
        },
      }),
    )
    expect(res).toMatchObject({
      address: address.toLowerCase(),
      coin: 'avax',
      fromBlock: String(Number(block) - 1),
      toBlock: block,
      jobId: expect.any(String),
    })
    const [row] = (await auditRows(t, 'deposit.rescan')).filter((r) => r.targetId === address.toLowerCase())
    expect(row).toMatchObject({
      actorId: admin.id,
      targetType: 'address',
      reason: 'Support ticket 5120: deposit not credited',
      details: { coin: 'avax', fromBlock: String(Number(block) - 1), toBlock: block },
    })
    const job = await t.database.db
      .selectFrom('jobs')
      .select(['kind', 'payload'])
      .where('id', '=', res.jobId)
      .executeTakeFirstOrThrow()
    expect(job.kind).toBe('settlement.rescan')
    expect(job.payload).toMatchObject({ runId: `operator:${row!.id}` })

    await t.drain()
    // The deposit was credited already: the rescan found it recorded and credited nothing again.
    expect(await balanceOf(user)).toBe(before)
    expect(expectOk(await lookup(hash)).deposits).toHaveLength(1)
    const done = await t.database.db.selectFrom('jobs').select('id').where('id', '=', res.jobId).execute()
    const failed = await t.database.db
      .selectFrom('jobs')
      .select(['id', 'lastError'])
      .where('kind', '=', 'settlement.rescan')
      .where('lastError', 'is not', null)
      .execute()
    expect(failed).toEqual([])
    expect(done.length).toBeLessThanOrEqual(1)
  })

  it('refuses a bad range, an unknown coin and an address that is not the platform’s, leaving no row', async () => {
    const address = await walletAddress(t, user)
    const head = expectOk(await lookup(await pay(address, AVAX / 16n))).blockNumber as string
    await t.app.services.settlement.watcher.scanNow()
    await t.drain()
    const rows = (await auditRows(t, 'deposit.rescan')).length
    const send = (body: Record<string, unknown>) =>
      t.req({
        method: 'POST',
        url: '/v1/admin/deposits/rescan',
        token: admin.token,
        payload: { address, coin: 'avax', fromBlock: '1', toBlock: head, reason: 'looking again', ...body },
      })
    const field = async (body: Record<string, unknown>, path: string) => {
      const res = await send(body)
      expectError(res, 400, 'VALIDATION_ERROR')
      expect(JSON.stringify(res.json().data), JSON.stringify(body)).toContain(path)
    }
    await field({ fromBlock: head, toBlock: '1' }, '/fromBlock')
    await field({ fromBlock: '1', toBlock: String(Number(head) + 10) }, '/toBlock')
    await field({ coin: 'doge' }, '/coin')
    await field({ address: freshAddress() }, '/address')
    expectError(await send({ address: 'nowhere' }), 400, 'VALIDATION_ERROR')
    expectError(await send({ reason: undefined }), 400, 'VALIDATION_ERROR')
    expectError(await send({ extra: 1 }), 400, 'VALIDATION_ERROR')
    expect((await auditRows(t, 'deposit.rescan')).length).toBe(rows)
  })
})
