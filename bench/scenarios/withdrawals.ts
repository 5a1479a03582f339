// Withdrawal requests under contention on one balance: how many the API accepts per second when
// every request races for the same wallet, and whether the ledger stays right (no overdraft, every
// accepted request held exactly amount + fee, entries balanced). The worker sends the accepted ones
// on the dev chain meanwhile; the end-to-end case waits until every one of them landed. With
// --quick, 50 requests race for a balance that pays for 15 (every request checks the password,
// the slowest part), and 10 withdrawals go end to end instead of 30.
import type { Tx } from '../../src/db/index.ts'
import { verifyPassword } from '../../src/platform/crypto/passwords.ts'
import { cpuMeter } from '../cpu.ts'
import { ledgerViolations } from '../invariants.ts'
import type { BenchContext, BenchUser, Scenario } from '../lib.ts'

const USDC = 1_000_000n
const FEE = USDC / 10n

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  // Requests that race for one balance, how many of them it pays for, and those sent end to end.
  const racing = ctx.quick ? 50 : 300
  const affordable = ctx.quick ? 15 : 100
  const endToEnd = ctx.quick ? 10 : 30

  /**
   * The money invariants after a race, read in one snapshot (repeatable read): withdrawals keep
   * being sent and completed meanwhile, and reads from different moments would disagree.
   */
  function violations(userId: string, funded: bigint, accepted: number, amount: bigint) {
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((tx) => violationsIn(tx, userId, funded, accepted, amount))
  }

  async function violationsIn(db: Tx, userId: string, funded: bigint, accepted: number, amount: bigint) {
    let found = 0
    found += await ledgerViolations(db)
    const balance = await s.ledger.balance(db, 'user', userId, 'usdc')
    const held = (await s.ledger.accountsOf(db, 'user', userId)).usdc?.held ?? 0n
    // Each accepted withdrawal holds its amount (the transfer's hold, posted by settlement to the
    // chain when the transfer succeeds) and its fee (the withdrawal's own hold, posted to the
    // treasury by the report that marks it completed). A posted value hold may belong to a
    // withdrawal still shown pending or processing (its report follows in a job of its own); a
    // completed one must have both posted.
    const rows = await db
      .selectFrom('withdrawals')
      .leftJoin('ledgerHolds as v', 'v.id', 'withdrawals.holdId')
      .leftJoin('ledgerHolds as f', 'f.id', 'withdrawals.feeHoldId')
      .select([
        'withdrawals.status',
        'v.status as valueHold',
        'v.amount as valueAmount',
        'f.status as feeHold',
        'f.amount as feeAmount',
      ])
      .where('withdrawals.ownerId', '=', userId)
      .execute()
    const holds = rows.flatMap((r) => [
      { status: r.status, hold: r.valueHold, amount: r.valueAmount },
      { status: r.status, hold: r.feeHold, amount: r.feeAmount },
    ])
    const sumOf = (status: string) =>
      holds.filter((h) => h.hold === status).reduce((t, h) => t + BigInt(h.amount ?? 0), 0n)
    // What left the wallet = what accepted withdrawals hold or spent; nothing else.
    const gone = funded - balance
    const expected = BigInt(accepted) * (amount + FEE)
    if (gone !== expected) found++
    if (rows.length !== accepted) found++
    if (sumOf('pending') + sumOf('posted') !== expected) found++
    if (held !== sumOf('pending')) found++
    found += holds.filter((h) => h.hold !== 'pending' && h.hold !== 'posted').length
    found += holds.filter((h) => h.status === 'completed' && h.hold !== 'posted').length
    return found
  }

  async function race(requests: number, inFlight: number, fundedUnits: bigint, amount: bigint) {
    const user = await ctx.fundedUser(fundedUnits)
    const body = JSON.stringify({
      amount: Number(amount) / 1e6,
      coin: 'usdc',
      address: '0x000000000000000000000000000000000000dEaD',
      password: user.password,
    })
    let next = 0
    let accepted = 0
    let refused = 0
    let other = 0
    const started = performance.now()
    const worker = async () => {
      while (next < requests) {
        next++
        const res = await fetch(`${ctx.baseUrl}/v1/withdrawals/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
          body,
        })
        if (res.status === 200) accepted++
        else if (res.status === 422) refused++
        else other++
        await res.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    const ms = performance.now() - started
    return { user, accepted, refused, other, ms }
  }

  /**
   * `perWallet` requests on each of `wallets` funded wallets, 20 in flight spread over them (each
   * wallet can pay for all of its own), with the service's CPU per request and the cost of the
   * one password check every request makes (argon2id, on the libuv pool) measured beside.
   */
  async function acrossWallets(wallets: number, perWallet: number) {
    const funded = BigInt(perWallet) * (USDC + FEE)
    const users: BenchUser[] = []
    for (let i = 0; i < wallets; i++) users.push(await ctx.fundedUser(funded))
    const body = (password: string) =>
      JSON.stringify({
        amount: Number(USDC) / 1e6,
        coin: 'usdc',
        address: '0x000000000000000000000000000000000000dEaD',
        password,
      })
    const total = wallets * perWallet
    const accepted = new Map<string, number>()
    let other = 0
    let next = 0
    const cpu = cpuMeter(s.database.kind === 'postgres')
    const started = performance.now()
    const worker = async () => {
      while (next < total) {
        const user = users[next++ % wallets]!
        const res = await fetch(`${ctx.baseUrl}/v1/withdrawals/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
          body: body(user.password),
        })
        if (res.status === 200) accepted.set(user.id, (accepted.get(user.id) ?? 0) + 1)
        else other++
        await res.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: 20 }, worker))
    const ms = performance.now() - started
    const perRequest = cpu(total)
    // The password check alone, on one of the run's hashes, 20 at a time as the requests ran.
    const hash = await db
      .selectFrom('users')
      .select('passwordHash')
      .where('id', '=', users[0]!.id)
      .executeTakeFirstOrThrow()
    const checks = 100
    const checkCpu = cpuMeter(false)
    for (let i = 0; i < checks; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, () => verifyPassword(hash.passwordHash, users[0]!.password)),
      )
    const { serviceCpuUs: passwordCheckCpuUs } = checkCpu(checks)
    let invariantViolations = 0
    for (const u of users)
      invariantViolations += await violations(u.id, funded, accepted.get(u.id) ?? 0, USDC)
    return {
      wallets,
      requests: total,
      requestsPerSec: Math.round((total / ms) * 1000),
      accepted: [...accepted.values()].reduce((a, b) => a + b, 0),
      otherStatus: other,
      ...perRequest,
      passwordCheckCpuUs: passwordCheckCpuUs!,
      invariantViolations,
    }
  }

  const spread = ctx.quick ? { wallets: 10, perWallet: 5 } : { wallets: 200, perWallet: 10 }

  return [
    {
      name: `POST /v1/withdrawals: ${spread.wallets * spread.perWallet} requests across ${spread.wallets} funded wallets, 20 in flight`,
      run: () => acrossWallets(spread.wallets, spread.perWallet),
    },
    {
      name: `POST /v1/withdrawals: ${racing} requests, 20 in flight, one balance for ${affordable}`,
      async run() {
        // Each accepted request holds 1 USDC and its fee of 0.1: enough for `affordable` of them.
        const funded = BigInt(affordable) * (USDC + FEE)
        const r = await race(racing, 20, funded, USDC)
        return {
          requests: racing,
          requestsPerSec: Math.round((racing / r.ms) * 1000),
          accepted: r.accepted,
          refusedInsufficient: r.refused,
          otherStatus: r.other,
          invariantViolations: await violations(r.user.id, funded, r.accepted, USDC),
        }
      },
    },
    {
      name: `withdrawals end to end: ${endToEnd} accepted on one wallet until all landed on chain`,
      async run() {
        const funded = BigInt(endToEnd) * (USDC + FEE)
        const started = performance.now()
        const r = await race(endToEnd, 10, funded, USDC)
        const deadline = Date.now() + 120_000
        for (;;) {
          const open = await db
            .selectFrom('withdrawals')
            .select('id')
            .where('ownerId', '=', r.user.id)
            .where('status', 'in', ['pending', 'processing'])
            .execute()
          if (open.length === 0 || Date.now() > deadline) break
          await new Promise((res) => setTimeout(res, 100))
        }
        const ms = performance.now() - started
        const completed = await db
          .selectFrom('withdrawals')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('ownerId', '=', r.user.id)
          .where('status', '=', 'completed')
          .executeTakeFirstOrThrow()
        return {
          accepted: r.accepted,
          completed: Number(completed.n),
          seconds: Math.round(ms) / 1000,
          withdrawalsPerSec: Math.round((Number(completed.n) / ms) * 10_000) / 10,
          invariantViolations: await violations(r.user.id, funded, r.accepted, USDC),
        }
      },
    },
  ]
}
