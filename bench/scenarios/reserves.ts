// Proof of reserves: a snapshot over many wallets (seeded with bulk SQL as empty ledger accounts,
// so the ledger stays sound) and the answer time of one user's proof. Target: 1,000,000 accounts
// in under 60 s on PostgreSQL (`large`), a proof in under 10 ms.
import { sql } from 'kysely'
import { takeSnapshots } from '../../src/modules/reserves/snapshot.ts'
import type { BenchContext, Scenario } from '../lib.ts'

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const accounts = ctx.large ? 1_000_000 : ctx.quick ? 10_000 : 100_000
  const tag = Date.now().toString(16).padStart(11, '0').slice(-11)
  const owner = (i: number) => `rs${tag}${i.toString(16).padStart(11, '0')}`
  await sql`
    insert into ledger_accounts (id, kind, owner_id, coin, balance, held, created_at, updated_at)
    select 'rs' || ${tag} || lpad(to_hex(i), 11, '0'), 'user', 'rs' || ${tag} || lpad(to_hex(i), 11, '0'),
           'usdc', 0, 0, now(), now()
    from generate_series(1, ${accounts}::int) i`.execute(db)
  let snapshotId = ''
  return [
    {
      name: `reserves: snapshot of every coin over ${accounts} more wallets`,
      run: async () => {
        const started = performance.now()
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
        snapshotId = taken.find((t) => t.coin === 'usdc')!.id
        return { seconds: Math.round((performance.now() - started) / 10) / 100, coins: taken.length }
      },
    },
    {
      name: 'reserves: one wallet proof (service call), p50 and p99 of 200',
      run: async () => {
        const times: number[] = []
        for (let i = 0; i < 200; i++) {
          const started = performance.now()
          const proof = await s.reserves.proof(snapshotId, owner(1 + ((i * 7919) % accounts)))
          times.push(performance.now() - started)
          if (proof.leaves.length !== 1) throw new Error('a seeded wallet has no leaf')
        }
        times.sort((a, b) => a - b)
        return { p50Ms: Math.round(times[100]! * 100) / 100, p99Ms: Math.round(times[198]! * 100) / 100 }
      },
    },
  ]
}
