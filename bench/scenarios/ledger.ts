// Ledger throughput: transfers between many accounts (1,000 accounts seeded with bulk SQL, each
// transfer its own transaction, 20 in flight) and on one hot account (every transfer debits the
// same balance, 20 in flight), each measured after a tenth as many unmeasured warm-up transfers.
// Targets: 3,000/s across many accounts and 500/s on one hot account, with the ledger's invariant
// (each coin's entries sum to zero) checked after. Each case also prints the CPU microseconds one
// transfer costs the service and, when it runs on this machine, PostgreSQL. On a PostgreSQL server,
// with pgbench installed, the case across many accounts is followed by the database's own ceiling
// for the same call on the same accounts (bench/pgbench/ledger.sh), in the same run, and by the
// same call without waiting for each commit's WAL flush (synchronous_commit off): what durable
// commits cost on this machine's disk. Both cases then run again through the ledger's group commit
// (`ledger.submit`: transfers submitted meanwhile written in one transaction), printing how many
// batches they took and their mean size.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { sql } from 'kysely'
import { cpuMeter } from '../cpu.ts'
import type { BenchContext, Scenario } from '../lib.ts'

const ACCOUNTS = 1_000
const IN_FLIGHT = 20
const run = promisify(execFile)

/**
 * Transfers per second PostgreSQL makes alone (pgbench, 20 clients) between the accounts whose
 * owner ids start with `prefix`, and the coin's entries sum after; undefined without pgbench.
 * With `asyncCommit`, its sessions do not wait for each commit's WAL flush (synchronous_commit
 * off, which the service refuses in production): what the flush costs on this machine.
 */
async function databaseAlone(url: string, prefix: string, seconds: number, asyncCommit = false) {
  const script = new URL('../pgbench/ledger.sh', import.meta.url).pathname
  try {
    await run('pgbench', ['--version'])
  } catch {
    return undefined
  }
  const env = asyncCommit ? { ...process.env, PGOPTIONS: '-c synchronous_commit=off' } : process.env
  const { stdout } = await run('bash', [script, url, String(seconds), prefix], { maxBuffer: 1 << 20, env })
  const tps = /^tps = ([\d.]+)/m.exec(stdout)?.[1]
  const sum = /^entries sum: (-?\d+)/m.exec(stdout)?.[1]
  if (tps === undefined || sum === undefined) throw new Error(`pgbench printed no rate:\n${stdout}`)
  return { perSec: Math.round(Number(tps)), entriesSum: sum }
}

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const count = ctx.quick ? 1_000 : 10_000
  const warmUp = count / 10
  const tag = Date.now().toString(16).padStart(11, '0').slice(-11)
  await sql`
    insert into users (id, email, first_name, last_name, status, email_verified, referral_code, user_name)
    select 'le' || ${tag} || lpad(to_hex(i), 11, '0'), 'ledger' || ${tag} || '-' || i || '@bench.example',
           'Ledger', 'Bench', true, true, 'LE' || ${tag} || lpad(to_hex(i), 6, '0'), 'ledger' || ${tag} || i
    from generate_series(1, ${ACCOUNTS}::int) i`.execute(db)
  const accounts: string[] = []
  const clearing = await s.ledger.ensureAccount(db, 'chain', `bench-${tag}`, 'usdc')
  for (let i = 1; i <= ACCOUNTS; i++) {
    const owner = `le${tag}${i.toString(16).padStart(11, '0')}`
    accounts.push(await s.ledger.ensureAccount(db, 'user', owner, 'usdc'))
  }
  await db.transaction().execute(async (tx) => {
    for (const [i, account] of accounts.entries())
      await s.ledger.transfer(tx, {
        key: `bench:ledger:fund:${tag}:${i}`,
        coin: 'usdc',
        legs: [
          { account: clearing, amount: -1_000_000n },
          { account, amount: 1_000_000n },
        ],
      })
  })

  // Transfers number `first` to `end` (exclusive), IN_FLIGHT at a time: each its own transaction
  // (`transfer` inside it), or submitted to the ledger's group commit (`submit`).
  async function transfers(
    name: string,
    legs: (i: number) => [string, string],
    first: number,
    end: number,
    batched: boolean,
  ) {
    let next = first
    const worker = async () => {
      while (next < end) {
        const i = next++
        const [from, to] = legs(i)
        const input = {
          key: `bench:ledger:${name}:${tag}:${i}`,
          coin: 'usdc',
          legs: [
            { account: from, amount: -1n },
            { account: to, amount: 1n },
          ],
        }
        if (batched) await s.ledger.submit(db, input)
        else await db.transaction().execute((tx) => s.ledger.transfer(tx, input))
      }
    }
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  }

  async function measure(name: string, legs: (i: number) => [string, string], batched = false) {
    // Measured once warm: the first transfers of a process compile its code and fill the
    // database's caches and plans, which a long-running service has long done.
    await transfers(name, legs, count, count + warmUp, batched)
    const cpu = cpuMeter(s.database.kind === 'postgres')
    const before = s.ledger.batchStats(db)
    const started = performance.now()
    await transfers(name, legs, 0, count, batched)
    const ms = performance.now() - started
    const perTransfer = cpu(count)
    const sum = await sql<{ total: string }>`
      select coalesce(sum(amount), 0)::text as total from ledger_entries where coin = 'usdc'`
      .execute(db)
      .then((r) => r.rows[0]?.total ?? 'n/a')
      .catch(() => 'n/a')
    const after = s.ledger.batchStats(db)
    const batches = after.batches - before.batches
    return {
      transfers: count,
      transfersPerSec: Math.round((count / ms) * 1000),
      ...perTransfer,
      ...(batched
        ? { batches, meanBatch: Number(((after.transfers - before.transfers) / batches).toFixed(1)) }
        : {}),
      entriesSum: sum,
    }
  }

  const many = (i: number): [string, string] => [accounts[i % ACCOUNTS]!, accounts[(i * 7 + 1) % ACCOUNTS]!]
  const hot = (i: number): [string, string] => [accounts[0]!, accounts[1 + (i % (ACCOUNTS - 1))]!]

  return [
    {
      name: `ledger: transfers across ${ACCOUNTS} accounts, ${IN_FLIGHT} in flight`,
      run: async () => {
        const service = await measure('many', many)
        // The service's figures stand even when the database's own run fails (psql missing, say).
        const alone =
          s.database.kind === 'postgres' && ctx.databaseUrl
            ? await databaseAlone(ctx.databaseUrl, `le${tag}`, ctx.quick ? 1 : 5).catch((err: Error) => ({
                error: err.message.split('\n')[0]!,
              }))
            : undefined
        if (!alone) return service
        if ('error' in alone) return { ...service, databaseAloneError: alone.error }
        const unflushed = await databaseAlone(ctx.databaseUrl!, `le${tag}`, ctx.quick ? 1 : 5, true).catch(
          () => undefined,
        )
        return {
          ...service,
          databaseAlonePerSec: alone.perSec,
          ofDatabaseAlone: Number((service.transfersPerSec / alone.perSec).toFixed(3)),
          ...(unflushed ? { databaseAloneAsyncCommitPerSec: unflushed.perSec } : {}),
          entriesSumAfterDatabaseAlone: (unflushed ?? alone).entriesSum,
        }
      },
    },
    {
      name: `ledger: transfers from one hot account, ${IN_FLIGHT} in flight`,
      run: () => measure('hot', hot),
    },
    {
      name: `ledger: transfers across ${ACCOUNTS} accounts, ${IN_FLIGHT} in flight, group commit`,
      run: () => measure('many-batched', many, true),
    },
    {
      name: `ledger: transfers from one hot account, ${IN_FLIGHT} in flight, group commit`,
      run: () => measure('hot-batched', hot, true),
    },
  ]
}
