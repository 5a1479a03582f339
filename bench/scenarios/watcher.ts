// The deposit watcher's cost per block against the number of custodial addresses: N addresses
// seeded in wallet_keys with one bulk statement (well-formed addresses whose keys are never
// opened), then blocks of the dev chain each carrying a few deposits to real users' addresses
// (a token and a native transfer each) and as many transfers between outside addresses, each
// block scanned on its own (fetch, classify, apply) and timed. Measured at 10,000 and 100,000
// addresses (1,000 and 10,000 with --quick); the cost should not grow with N. The job runner is
// paused meanwhile, so no other pass scans the blocks first (the deposits' report jobs run after).
import { sql } from 'kysely'
import type { Hex } from 'viem'
import type { BenchContext, Scenario } from '../lib.ts'

const TARGETS = 4
/** blocks scanned before the timed ones (warm caches and connections) */
const WARMUP = 3

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const chain = s.chain
  if (!chain.devnet)
    return [{ name: 'watcher per block', run: async () => ({ skipped: 'not on the devnet' }) }]
  const devnet = chain.devnet
  const sizes = ctx.quick ? [1_000, 10_000] : [10_000, 100_000]
  // blocks timed per size
  const BLOCKS = ctx.quick ? 10 : 20
  const native = chain.coins.find((c) => !c.isToken)!.reference
  const token = chain.coins.find((c) => c.isToken)!.reference
  const tag = Date.now().toString(16).padStart(11, '0').slice(-11)

  // Real users whose custodial addresses receive the deposits, and outside payers.
  const targets: string[] = []
  for (let i = 0; i < TARGETS; i++) {
    const user = await ctx.createUser()
    const key = await s.keys.find(db, 'user', user.id)
    if (!key) throw new Error('no custodial key for a bench user')
    targets.push(key.address)
  }
  const payers = devnet.accounts.slice(1, 1 + TARGETS)
  const outsiders = devnet.accounts.slice(1 + TARGETS, 1 + 2 * TARGETS)
  for (const p of payers) await devnet.fund(p.address, token, 10n ** 15n)

  let seeded = 0
  /** Custodial addresses up to `n` (owners that do not exist: their keys are never opened). */
  async function seedTo(n: number) {
    const started = performance.now()
    await sql`
      insert into wallet_keys (id, owner_kind, owner_id, address, sealed_key, created_at)
      select 'wk' || ${tag} || lpad(to_hex(i), 11, '0'), 'user', 'bench-watch-' || ${tag} || '-' || i,
             '0x' || lpad(to_hex(i), 8, '0') || md5(${tag} || i), 'bench: never opened', now()
      from generate_series(${seeded + 1}::int, ${n}::int) i`.execute(db)
    seeded = n
    return Math.round(performance.now() - started)
  }

  async function measure(n: number): Promise<Record<string, number | string>> {
    const seedMs = await seedTo(n)
    await sql`analyze wallet_keys`.execute(db)
    await s.jobs.stop()
    try {
      await s.settlement.watcher.scanNow()
      await devnet.setAutomine(false)
      const fees = await chain.estimateFees()
      const nonces = new Map<string, number>()
      for (const a of [...payers, ...outsiders])
        nonces.set(a.address, await chain.getNonce(a.address, 'pending'))
      const send = async (from: { address: string; privateKey: Hex }, coin: string, to: string) => {
        const nonce = nonces.get(from.address)!
        nonces.set(from.address, nonce + 1)
        const signed = await chain.signTransfer(from.privateKey, {
          coin,
          to,
          amount: 1_000n,
          nonce,
          fees,
          gas: coin === native ? 21_000n : 100_000n,
        })
        await chain.broadcast(signed.raw)
      }
      const times: number[] = []
      let applied = 0
      for (let b = 0; b < WARMUP + BLOCKS; b++) {
        for (let i = 0; i < TARGETS; i++) {
          await send(payers[i]!, token, targets[i]!)
          await send(payers[i]!, native, targets[i]!)
          await send(outsiders[i]!, native, outsiders[(i + 1) % TARGETS]!.address)
        }
        await devnet.mine(1)
        const started = performance.now()
        const result = await s.settlement.watcher.scanNow()
        if (b < WARMUP) continue
        times.push(performance.now() - started)
        applied += result.applied
      }
      times.sort((x, y) => x - y)
      const at = (q: number) =>
        Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1))
      return {
        addresses: n,
        seedMs,
        blocks: BLOCKS,
        depositsPerBlock: 2 * TARGETS,
        txPerBlock: 3 * TARGETS,
        credited: applied,
        p50MsPerBlock: at(0.5),
        p90MsPerBlock: at(0.9),
      }
    } finally {
      await devnet.setAutomine(true)
      s.jobs.start()
    }
  }

  return [
    ...sizes.map((n) => ({
      name: `watcher: one block per scan, ${n} custodial addresses`,
      run: () => measure(n),
    })),
    {
      name: 'watcher: seeded addresses removed',
      async run() {
        const res = await sql`delete from wallet_keys where id like ${`wk${tag}%`}`.execute(db)
        return { removed: Number(res.numAffectedRows ?? 0) }
      },
    },
  ]
}
