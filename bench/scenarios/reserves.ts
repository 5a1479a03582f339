// Proof of reserves: a snapshot over many wallets with balances, and the answer time of one user's
// proof. The wallets are seeded with bulk SQL (generate_series) as the ledger keeps them: accounts
// with their balance, and one transfer whose entries credit each of them against the chain's
// clearing account, so the double entry holds; they have no custodial address, so reconciliation
// (which compares addresses) does not see them, and they are removed at the end. Targets: 1,000,000
// accounts in under 60 s on PostgreSQL (`large`), a proof in under 10 ms.
import { sql } from 'kysely'
import { takeSnapshots } from '../../src/modules/reserves/snapshot.ts'
import { cpuMeter } from '../cpu.ts'
import type { BenchContext, BenchUser, Scenario } from '../lib.ts'

const quantile = (sorted: number[], q: number) =>
  Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 100) / 100

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const accounts = ctx.large ? 1_000_000 : ctx.quick ? 10_000 : 100_000
  // proofs asked one at a time, of the service and over HTTP
  const serviceProofs = ctx.quick ? 200 : 1000
  const httpProofs = ctx.quick ? 100 : 500
  const tag = Date.now().toString(16).padStart(11, '0').slice(-11)
  const prefix = `rs${tag}`
  const owner = (i: number) => `${prefix}${i.toString(16).padStart(11, '0')}`
  const transferId = `${prefix}${'f'.repeat(11)}`
  let snapshotId = ''
  let user: BenchUser | undefined

  const proofTimes = async (n: number, one: (i: number) => Promise<number>) => {
    // the CPU each proof cost: on a busy machine a steadier figure than its latency
    const cpu = cpuMeter(ctx.databaseUrl !== undefined)
    const times: number[] = []
    for (let i = 0; i < n; i++) {
      const started = performance.now()
      const leaves = await one(i)
      times.push(performance.now() - started)
      if (leaves !== 1) throw new Error(`a proof answered ${leaves} wallet leaves`)
    }
    times.sort((a, b) => a - b)
    return {
      proofs: n,
      p50Ms: quantile(times, 0.5),
      p99Ms: quantile(times, 0.99),
      maxMs: quantile(times, 1),
      ...cpu(n),
    }
  }

  return [
    {
      name: `reserves: seed ${accounts} wallets with balances (generate_series)`,
      run: async () => {
        const started = performance.now()
        // a user of the API too, whose wallet (with a balance of 0) is in the snapshot
        user = await ctx.createUser()
        await ctx.app.inject({
          method: 'GET',
          url: '/v1/wallet',
          headers: { authorization: `Bearer ${user.token}` },
        })
        const clearing = await s.ledger.ensureAccount(db, 'chain', String(s.chain.chainId), 'usdc')
        // balances of 0.001 to 5 USDC, a few of them 0
        const balance = sql`((i::bigint * 7919) % 5000) * 1000`
        await db.transaction().execute(async (tx) => {
          await sql`
            insert into ledger_accounts (id, kind, owner_id, coin, balance, held, created_at, updated_at)
            select ${prefix} || lpad(to_hex(i), 11, '0'), 'user', ${prefix} || lpad(to_hex(i), 11, '0'),
                   'usdc', ${balance}, 0, now(), now()
            from generate_series(1, ${accounts}::int) i`.execute(tx)
          await sql`
            insert into ledger_transfers (id, idempotency_key, coin, kind, description)
            values (${transferId}, ${`bench:reserves:${tag}`}, 'usdc', 'bench.seed', 'reserves bench seed')`.execute(
            tx,
          )
          await sql`
            insert into ledger_entries (transfer_id, account_id, coin, amount)
            select ${transferId}, ${prefix} || lpad(to_hex(i), 11, '0'), 'usdc', ${balance}
            from generate_series(1, ${accounts}::int) i
            where ${balance} <> 0`.execute(tx)
          await sql`
            insert into ledger_entries (transfer_id, account_id, coin, amount)
            select ${transferId}, ${clearing}, 'usdc', -sum(amount)
            from ledger_entries where transfer_id = ${transferId}`.execute(tx)
        })
        const total = await sql<{ total: string }>`
          select sum(balance)::text as total from ledger_accounts where id like ${`${prefix}%`}`.execute(db)
        return {
          seconds: Math.round((performance.now() - started) / 10) / 100,
          accounts,
          usdcBaseUnits: total.rows[0]!.total,
        }
      },
    },
    {
      name: `reserves: snapshot of every coin over ${accounts} more wallets`,
      run: async () => {
        const started = performance.now()
        const cpu = cpuMeter(ctx.databaseUrl !== undefined)
        const taken = await takeSnapshots(
          {
            db,
            chain: s.chain,
            clock: s.clock,
            log: s.log,
            secrets: s.secrets,
            attestationKey: s.config.reservesAttestationKey,
            ledger: s.ledger,
            keys: s.keys,
            escrowParties: (ex, ids) => s.escrow.parties(ex, ids),
            cursor: (ex) => s.settlement.watcher.cursor(ex),
          },
          { trigger: 'operator', requestedBy: null },
        )
        const usdc = taken.find((t) => t.coin === 'usdc')!
        snapshotId = usdc.id
        // CPU seconds: this process's (the service), and every PostgreSQL process's on this machine
        // (shared with anything else the server runs meanwhile)
        const used = cpu(1)
        return {
          seconds: Math.round((performance.now() - started) / 10) / 100,
          serviceCpuSeconds: Math.round(used.serviceCpuUs! / 10_000) / 100,
          ...(used.databaseCpuUs === undefined
            ? {}
            : { databaseCpuSeconds: Math.round(used.databaseCpuUs / 10_000) / 100 }),
          coins: taken.length,
          usdcLeaves: usdc.leafCount,
          usdcLiabilities: usdc.liabilitiesTotal.toString(),
          // ms per step of the usdc snapshot (the ledger read is shared by the coins)
          readMs: usdc.ms.read,
          treeMs: usdc.ms.tree,
          chainMs: usdc.ms.chain,
          signMs: usdc.ms.sign,
          storeMs: usdc.ms.store,
        }
      },
    },
    {
      name: `reserves: one seeded wallet proof (service call), ${serviceProofs} one at a time`,
      run: () =>
        proofTimes(serviceProofs, async (i) => {
          const proof = await s.reserves.proof(snapshotId, owner(1 + ((i * 7919) % accounts)))
          return proof.leaves.length
        }),
    },
    {
      name: `reserves: GET /v1/reserves/{id}/proof over HTTP, ${httpProofs} one at a time`,
      run: async () => {
        const url = `${ctx.baseUrl}/v1/reserves/${snapshotId}/proof`
        const headers = { authorization: `Bearer ${user!.token}` }
        return proofTimes(httpProofs, async () => {
          const res = await fetch(url, { headers })
          if (res.status !== 200) throw new Error(`GET proof answered ${res.status}`)
          const body = (await res.json()) as { data: { leaves: { kind: string }[] } }
          return body.data.leaves.filter((l) => l.kind === 'wallet').length
        })
      },
    },
    {
      name: 'reserves: seeded wallets removed',
      run: async () => {
        const started = performance.now()
        const removed = await db.transaction().execute(async (tx) => {
          await sql`delete from ledger_entries where transfer_id = ${transferId}`.execute(tx)
          await sql`delete from ledger_transfers where id = ${transferId}`.execute(tx)
          // Nothing refers to a seeded account but its own entries, deleted above: each foreign key's
          // check (a scan of the referring table per account, where that column has no index of its
          // own, as on outgoing transfers after the payouts) is skipped for this transaction; the
          // table has no trigger of its own that the setting would skip too.
          await sql`set local session_replication_role = replica`.execute(tx)
          const res = await sql`delete from ledger_accounts where id like ${`${prefix}%`}`.execute(tx)
          return Number(res.numAffectedRows ?? 0)
        })
        return { removed, seconds: Math.round((performance.now() - started) / 10) / 100 }
      },
    },
  ]
}
