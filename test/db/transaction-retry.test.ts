// Transactions aborted by PostgreSQL for a deadlock or a serialization failure run again
// (src/db/retry.ts): the rule itself, and a real deadlock between two transactions on PostgreSQL.
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { RetryStats, retryReason, withRetries } from '../../src/db/retry.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const policy = { retries: 3, baseDelayMs: 1 }
const pgError = (code: string) => Object.assign(new Error(`pg ${code}`), { code })

describe('withRetries', () => {
  it('runs again after a deadlock or a serialization failure, then answers', async () => {
    const stats = new RetryStats()
    const failures = [pgError('40P01'), pgError('40001')]
    let runs = 0
    const out = await withRetries(policy, stats, async () => {
      runs++
      const next = failures.shift()
      if (next) throw next
      return 'done'
    })
    expect(out).toBe('done')
    expect(runs).toBe(3)
    expect(stats.retried).toEqual({ deadlock: 1, serialization: 1 })
    expect(stats.exhausted).toEqual({ deadlock: 0, serialization: 0 })
  })

  it('gives up after the policy retries and counts it', async () => {
    const stats = new RetryStats()
    let runs = 0
    await expect(
      withRetries(policy, stats, async () => {
        runs++
        throw pgError('40001')
      }),
    ).rejects.toMatchObject({ code: '40001' })
    expect(runs).toBe(policy.retries + 1)
    expect(stats.retried.serialization).toBe(policy.retries)
    expect(stats.exhausted.serialization).toBe(1)
  })

  it('never runs again after another error', async () => {
    const stats = new RetryStats()
    let runs = 0
    for (const err of [pgError('23505'), new Error('business'), pgError('40P02')]) {
      await expect(
        withRetries(policy, stats, async () => {
          runs++
          throw err
        }),
      ).rejects.toBe(err)
    }
    expect(runs).toBe(3)
    expect(retryReason(pgError('40P01'))).toBe('deadlock')
    expect(retryReason(null)).toBeUndefined()
    expect(stats.retried).toEqual({ deadlock: 0, serialization: 0 })
  })
})

describe.runIf(inject('testDb') === 'postgres')('a real deadlock on PostgreSQL', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
    await sql`create table retry_probe (id text primary key, n int not null)`.execute(t.database.db)
    await sql`insert into retry_probe values ('a', 0), ('b', 0)`.execute(t.database.db)
  })
  afterAll(() => t.close())

  it('two transactions locking two rows in opposite orders both commit, one of them run again', async () => {
    const { db, retryStats } = t.database
    const before = retryStats.retried.deadlock
    // Each first run locks its first row, waits until the other holds its own, then asks for it:
    // PostgreSQL aborts one of them with 40P01, and that one runs again once the other committed.
    let holding = 0
    let bothHold: () => void = () => {}
    const bothHolding = new Promise<void>((resolve) => {
      bothHold = resolve
    })
    const bump = (first: string, second: string) => {
      let run = 0
      return db.transaction().execute(async (tx) => {
        run++
        await sql`update retry_probe set n = n + 1 where id = ${first}`.execute(tx)
        if (run === 1) {
          if (++holding === 2) bothHold()
          await bothHolding
        }
        await sql`update retry_probe set n = n + 1 where id = ${second}`.execute(tx)
        return run
      })
    }
    const runs = await Promise.all([bump('a', 'b'), bump('b', 'a')])
    expect(runs.sort()).toEqual([1, 2])
    expect(retryStats.retried.deadlock - before).toBe(1)
    const rows = await sql<{ id: string; n: number }>`select id, n from retry_probe order by id`.execute(db)
    expect(rows.rows).toEqual([
      { id: 'a', n: 2 },
      { id: 'b', n: 2 },
    ])
    const metrics = await t.req({ method: 'GET', url: '/metrics' })
    expect(metrics.body).toMatch(
      /workpay_db_transaction_retries_total\{reason="deadlock",outcome="retried"\} 1/,
    )
  })
})
