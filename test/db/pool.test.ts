// The PostgreSQL pool keeps its connections (src/db/index.ts): an idle one stays open ten minutes
// instead of pg's ten seconds, any one is renewed after half an hour, and an idle pool does not
// keep a process alive. The pool's timers run on a fake clock; the connections are real, told
// apart by their server process id.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Database, openPostgres, POOL_IDLE_MS, POOL_LIFETIME_S } from '../../src/db/index.ts'
import { type ScratchPostgres, scratchPostgres } from '../helpers/postgres.ts'

const run = promisify(execFile)

describe.runIf(process.env.TEST_DB === 'postgres')('the PostgreSQL pool', () => {
  let scratch: ScratchPostgres
  let database: Database | undefined

  beforeAll(async () => {
    scratch = await scratchPostgres('wp_pool')
  })
  afterEach(async () => {
    vi.useRealTimers()
    await database?.close()
    database = undefined
  })
  afterAll(async () => {
    await scratch.drop()
  })

  /** A pool of one connection whose idle and lifetime timers run on the fake clock. */
  function open(): Database {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    database = openPostgres(scratch.url, 1)
    return database
  }
  /** The server process behind the pool's connection: a new one is a new connection. */
  const backend = async (d: Database) =>
    (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(d.db)).rows[0]!.pid
  const minutes = (n: number) => n * 60_000

  it('keeps an idle connection past ten seconds, and closes it after ten idle minutes', async () => {
    const d = open()
    const first = await backend(d)
    vi.advanceTimersByTime(minutes(1))
    expect(await backend(d)).toBe(first)
    vi.advanceTimersByTime(POOL_IDLE_MS - 1_000)
    expect(await backend(d)).toBe(first)
    vi.advanceTimersByTime(POOL_IDLE_MS + 1_000)
    expect(await backend(d)).not.toBe(first)
  })

  it('renews a connection in steady use after half an hour', async () => {
    const d = open()
    const first = await backend(d)
    // Used every five minutes: never idle long enough to close, but not kept past its lifetime.
    for (let used = 5; used < POOL_LIFETIME_S / 60; used += 5) {
      vi.advanceTimersByTime(minutes(5))
      expect(await backend(d)).toBe(first)
    }
    vi.advanceTimersByTime(minutes(5) + 1_000)
    expect(await backend(d)).not.toBe(first)
  })

  it('never opens more connections than its size, however many statements wait', async () => {
    database = openPostgres(scratch.url, 3)
    const d = database
    // Twelve statements at once, each holding its connection a moment: they queue for three (a
    // larger pool would answer them on as many connections as it opened).
    const pids = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(
          d.db,
        )
        return rows[0]!.pid
      }),
    )
    expect(new Set(pids).size).toBe(3)
  })

  it('lets a process whose only work left is an idle pool exit', async () => {
    // The pool is used and never closed: the process still ends on its own.
    const script = `
      import { sql } from 'kysely'
      import { openPostgres } from './src/db/index.ts'
      const d = openPostgres(process.env.URL, 2)
      await sql\`select 1\`.execute(d.db)
      console.log('queried')`
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { ...process.env, URL: scratch.url },
      timeout: 60_000,
    })
    expect(stdout.trim()).toBe('queried')
  })
})
