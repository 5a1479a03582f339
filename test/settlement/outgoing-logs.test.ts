// Every money movement of the outgoing sender leaves one structured log line with its ids and
// amounts (enqueued, signed, broadcast, replaced, confirmed, failed, gas top-ups), and no line
// carries a private key or a signed transaction.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { ManualClock } from '../../src/platform/clock.ts'
import { openTestDatabase, TEST_ENV, type TestApp } from '../helpers/app.ts'
import { createUser, type TestUser } from '../helpers/factories.ts'
import { deployRefuser } from '../helpers/refuser.ts'
import {
  AVAX,
  freshAddress,
  fundUser,
  settleAll,
  walletAddress,
  withdrawAvax,
} from '../withdrawals/helpers.ts'

const lines: Record<string, any>[] = []
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
    done()
  },
})
let t: TestApp
let dataDir: string

beforeAll(async () => {
  const database = await openTestDatabase()
  dataDir = mkdtempSync(join(tmpdir(), 'wp-outgoing-logs-'))
  const config = loadConfig({ ...TEST_ENV, LOG_LEVEL: 'info', DATA_DIR: dataDir })
  const clock = new ManualClock()
  const crash: TestApp['crash'] = { hook: undefined }
  const app = await buildApp({
    config,
    database,
    clock,
    logger: pino({ level: 'info' }, sink),
    crashHook: (at, id) => crash.hook?.(at, id),
  })
  await app.ready()
  t = {
    crash,
    app,
    database,
    clock,
    config,
    async close() {
      await app.close()
      await database.close()
    },
    drain: () => app.services.jobs.runUntilIdle(),
    req: ({ token, headers, ...rest }) =>
      app.inject({
        ...rest,
        headers: { ...(headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      }),
  }
})
afterAll(async () => {
  await t?.close()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

async function withdraw(user: TestUser, amount: number, to: string) {
  return (await withdrawAvax(t, user, amount, to)).transferId
}

const about = (transferId: string) => lines.filter((l) => l.transferId === transferId)

describe('money movement log lines', () => {
  it('logs each step of a transfer once, with its ids and amounts, and never a key or a raw transaction', async () => {
    const user = await createUser(t)
    await fundUser(t, 15, user, 'avax', 3n * AVAX)
    const address = (await walletAddress(t, user)).toLowerCase()
    const to = freshAddress()
    const id = await withdraw(user, 0.5, to)
    await settleAll(t)

    const msgs = about(id).map((l) => l.msg)
    for (const msg of [
      'outgoing transfer enqueued',
      'outgoing transfer signed',
      'outgoing transfer broadcast',
      'outgoing transfer confirmed',
    ])
      expect(
        msgs.filter((m) => m === msg),
        msg,
      ).toHaveLength(1)
    const row = await t.database.db
      .selectFrom('outgoingTransfers')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    expect(about(id).find((l) => l.msg === 'outgoing transfer confirmed')).toMatchObject({
      purpose: 'withdrawal',
      referenceId: row.referenceId,
      coin: 'avax',
      amount: (AVAX / 2n).toString(),
      from: address,
      to: to.toLowerCase(),
      txHash: row.txHash,
      gasUsed: '21000',
    })
    // Its gas came with a top-up from the gas wallet, logged when asked for and when confirmed.
    const requested = lines.find((l) => l.msg === 'gas top-up requested' && l.for === id)
    expect(requested).toMatchObject({ address, coin: 'avax', amount: expect.stringMatching(/^\d+$/) })
    expect(
      lines.some((l) => l.msg === 'gas top-up confirmed' && l.transferId === requested!.transferId),
    ).toBe(true)

    // A stuck transaction's replacement, and a failure.
    const devnet = t.app.services.chain.devnet!
    await devnet.setAutomine(false)
    const chain = t.app.services.chain
    const estimateFees = chain.estimateFees
    chain.estimateFees = async () => ({ type: 'eip1559', maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
    const stuck = await withdraw(user, 0.25, freshAddress())
    try {
      await t.drain()
    } finally {
      chain.estimateFees = estimateFees
    }
    for (
      let i = 0;
      i < 20 && !about(stuck).some((l) => l.msg.startsWith('outgoing transfer replaced'));
      i++
    ) {
      t.clock.advance(30_000)
      await t.drain()
    }
    await devnet.setAutomine(true)
    await devnet.mine(1)
    await settleAll(t)
    const replaced = about(stuck).find((l) => l.msg.startsWith('outgoing transfer replaced'))
    expect(replaced).toMatchObject({
      nonce: expect.any(Number),
      replacedTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      before: { maxFeePerGas: '1', maxPriorityFeePerGas: '1' },
    })
    expect(about(stuck).filter((l) => l.msg === 'outgoing transfer confirmed')).toHaveLength(1)

    // a payment the chain refuses (a contract that reverts on receipt) fails for good
    const sender = t.app.services.outgoing
    sender.options.maxFailures = 1
    const refuser = await deployRefuser(t)
    let failedId: string
    try {
      failedId = await withdraw(user, 0.1, refuser)
      await t.drain()
    } finally {
      sender.options.maxFailures = 5
    }
    expect(about(failedId).find((l) => l.msg === 'outgoing transfer failed')).toMatchObject({
      purpose: 'withdrawal',
      coin: 'avax',
      amount: (AVAX / 10n).toString(),
      code: 'REJECTED',
      attempts: 1,
    })

    // Nothing secret: no private key of the sending address, no signed transaction.
    const key = await t.app.services.keys.privateKey(t.database.db, address)
    const raws = (await t.database.db.selectFrom('outgoingTransactions').select('raw').execute()).map(
      (r) => r.raw,
    )
    const text = lines.map((l) => JSON.stringify(l)).join('\n')
    expect(text).not.toContain(key.slice(2))
    for (const raw of raws) expect(text).not.toContain(raw.slice(2))
  })
})
