// Payouts at payroll scale on the dev chain: many funded wallets each paying out several USDC
// withdrawals at once (10,000 from 1,000 wallets; 100 from 10 with --quick), and 100 withdrawals
// from one wallet (20 with --quick; one address: its transfers take consecutive nonces, signed and
// broadcast without waiting for each other's receipts). The withdrawals are written as fast as the
// service can: through the withdrawal service's write path (`recreate`: the same holds, record and
// transfer intent a request writes, in one transaction), skipping HTTP, the request's checks and
// the argon2 password check, which `POST /v1/withdrawals` (the `withdrawals` set) measures. The
// job runner sends them meanwhile (its gas top-ups, signatures, broadcasts and receipt checks);
// each case reports how long after the last request every withdrawal was completed on chain, the
// withdrawals per second over the whole case, the gas top-ups the sender made, and the money
// invariants after the run.
import { randomBytes } from 'node:crypto'
import type { Tx } from '../../src/db/index.ts'
import { feeOf } from '../../src/modules/withdrawals/service.ts'
import { ledgerViolations } from '../invariants.ts'
import type { BenchContext, BenchUser, Scenario } from '../lib.ts'

const USDC = 1_000_000n

export default async function scenarios(ctx: BenchContext): Promise<Scenario[]> {
  const s = ctx.app.services
  const db = s.database.db
  const chain = s.chain
  const wallets = ctx.quick ? 10 : 1_000
  const perWallet = 10
  // (20 with --quick: the --quick bench stays under two minutes)
  const oneWallet = ctx.quick ? 20 : 100
  // How long a case may wait for its last withdrawal before it reports what is still open.
  const waitLimitMs = ctx.quick ? 120_000 : 1_800_000

  /** `count` users whose custodial wallets each hold `usdc` base units, credited by the watcher. */
  async function fundedWallets(count: number, usdc: bigint) {
    const users: (BenchUser & { address: string })[] = await Promise.all(
      (await ctx.createUsers(count)).map(async (user) => {
        const key = await db.transaction().execute((tx) => s.keys.ensure(tx, 'user', user.id))
        return { ...user, address: key.address }
      }),
    )
    if (!chain.devnet) throw new Error('payouts need the dev chain')
    // Minted to each address on chain and credited by the real watcher, as a deposit is.
    for (const u of users) await chain.devnet.fund(u.address, 'usdc', usdc)
    const ids = users.map((u) => u.id)
    const creditBy = Date.now() + 300_000
    for (;;) {
      const { n } = await db
        .selectFrom('ledgerAccounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('kind', '=', 'user')
        .where('coin', '=', 'usdc')
        .where('ownerId', 'in', ids)
        .where('balance', '>=', usdc.toString())
        .executeTakeFirstOrThrow()
      if (Number(n) === count) break
      if (Date.now() > creditBy) throw new Error(`${count - Number(n)} wallets not credited within 300 s`)
      await s.settlement.watcher.scanNow()
    }
    return users
  }

  async function gasTopUps() {
    const { n } = await db
      .selectFrom('outgoingTransfers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('purpose', '=', 'gas.topup')
      .executeTakeFirstOrThrow()
    return Number(n)
  }

  /**
   * The money invariants once a case ended, in one snapshot: every withdrawal completed, by
   * exactly one mined transaction (its own hash, no other), its amount and fee holds posted; each
   * coin's entries sum to zero; no account but the chain's below zero; each wallet down by
   * exactly what it paid out; the destinations hold on chain what was sent to them.
   */
  async function violations(
    users: BenchUser[],
    withdrawalIds: string[],
    funded: bigint,
    amount: bigint,
    fee: bigint,
    destinations: string[],
  ) {
    const found = await db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((tx) => violationsIn(tx, users, withdrawalIds, funded, amount, fee))
    const received = (await Promise.all(destinations.map((d) => chain.balanceOf(d, 'usdc')))).reduce(
      (a, b) => a + b,
      0n,
    )
    return found + (received === BigInt(withdrawalIds.length) * amount ? 0 : 1)
  }

  async function violationsIn(
    tx: Tx,
    users: BenchUser[],
    withdrawalIds: string[],
    funded: bigint,
    amount: bigint,
    fee: bigint,
  ) {
    let found = 0
    found += await ledgerViolations(tx)
    const rows = []
    // (in slices: a statement's parameters are limited)
    for (let i = 0; i < withdrawalIds.length; i += 1_000) {
      rows.push(
        ...(await tx
          .selectFrom('withdrawals')
          .innerJoin('outgoingTransfers as o', 'o.id', 'withdrawals.outgoingId')
          .leftJoin('ledgerHolds as v', 'v.id', 'withdrawals.holdId')
          .leftJoin('ledgerHolds as f', 'f.id', 'withdrawals.feeHoldId')
          .select([
            'withdrawals.status',
            'withdrawals.txHash',
            'o.id as transferId',
            'o.status as transferStatus',
            'o.txHash as transferTxHash',
            'v.status as valueHold',
            'f.status as feeHold',
          ])
          .where('withdrawals.id', 'in', withdrawalIds.slice(i, i + 1_000))
          .execute()),
      )
    }
    if (rows.length !== withdrawalIds.length) found++
    found += rows.filter(
      (r) =>
        r.status !== 'completed' ||
        r.transferStatus !== 'completed' ||
        !r.txHash ||
        r.txHash !== r.transferTxHash ||
        r.valueHold !== 'posted' ||
        r.feeHold !== 'posted',
    ).length
    // Exactly one mined transaction per transfer, and no hash twice.
    const mined = new Map<string, number>()
    const hashes = new Set<string>()
    for (let i = 0; i < rows.length; i += 1_000) {
      const txs = await tx
        .selectFrom('outgoingTransactions')
        .select(['transferId', 'txHash'])
        .where('status', '=', 'mined')
        .where(
          'transferId',
          'in',
          rows.slice(i, i + 1_000).map((r) => r.transferId),
        )
        .execute()
      for (const t of txs) {
        mined.set(t.transferId, (mined.get(t.transferId) ?? 0) + 1)
        hashes.add(t.txHash)
      }
    }
    found += rows.filter((r) => mined.get(r.transferId) !== 1).length
    if (hashes.size !== rows.length) found++
    // Each wallet paid out its withdrawals and their fees, nothing more, and holds nothing.
    const spent = new Map<string, bigint>()
    for (let i = 0; i < withdrawalIds.length; i += 1_000) {
      const byOwner = await tx
        .selectFrom('withdrawals')
        .select(['ownerId', (eb) => eb.fn.countAll<number>().as('n')])
        .where('id', 'in', withdrawalIds.slice(i, i + 1_000))
        .groupBy('ownerId')
        .execute()
      for (const r of byOwner)
        spent.set(r.ownerId, (spent.get(r.ownerId) ?? 0n) + BigInt(r.n) * (amount + fee))
    }
    for (const u of users) {
      const acc = (await s.ledger.accountsOf(tx, 'user', u.id)).usdc
      if (!acc || acc.balance !== funded - (spent.get(u.id) ?? 0n) || acc.held !== 0n) found++
    }
    return found
  }

  /**
   * Writes `perUser` withdrawals of `amount` for each user, `inFlight` at a time, then waits until
   * every one is completed on chain.
   */
  async function payout(users: (BenchUser & { address: string })[], perUser: number, inFlight: number) {
    const coin = await s.coins.get('usdc')
    const fee = feeOf(coin)
    const amount = USDC
    const funded = BigInt(perUser) * (amount + fee)
    const rate = await s.transactions.requireRate('usdc')
    // A handful of outside addresses receive everything (checked on chain after the run).
    const destinations = Array.from({ length: 10 }, () => `0x${randomBytes(20).toString('hex')}`)
    const before = await Promise.all(destinations.map((d) => chain.balanceOf(d, 'usdc')))
    if (before.some((b) => b !== 0n)) throw new Error('the destinations must start empty')
    const topUpsBefore = await gasTopUps()
    const work = users.flatMap((u) => Array.from({ length: perUser }, () => u))
    const withdrawalIds: string[] = []
    let next = 0
    const started = performance.now()
    const writer = async () => {
      while (next < work.length) {
        const i = next++
        const u = work[i]!
        const { withdrawalId } = await db.transaction().execute((tx) =>
          s.withdrawals.recreate(tx, {
            userId: u.id,
            coin,
            amount,
            fee,
            address: destinations[i % destinations.length]!,
            from: u.address,
            rate,
          }),
        )
        withdrawalIds.push(withdrawalId)
      }
    }
    await Promise.all(Array.from({ length: inFlight }, writer))
    const lastRequest = performance.now()
    const deadline = Date.now() + waitLimitMs
    let open = withdrawalIds.length
    for (;;) {
      open = 0
      for (let i = 0; i < withdrawalIds.length; i += 1_000) {
        const { n } = await db
          .selectFrom('withdrawals')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', 'in', withdrawalIds.slice(i, i + 1_000))
          .where('status', 'in', ['pending', 'processing'])
          .executeTakeFirstOrThrow()
        open += Number(n)
      }
      if (open === 0 || Date.now() > deadline) break
      await new Promise((res) => setTimeout(res, 100))
    }
    const done = performance.now()
    const completed = withdrawalIds.length - open
    return {
      withdrawals: withdrawalIds.length,
      completed,
      requestSeconds: Math.round(lastRequest - started) / 1000,
      secondsAfterLastRequest: Math.round(done - lastRequest) / 1000,
      seconds: Math.round(done - started) / 1000,
      withdrawalsPerSec: Math.round((completed / (done - started)) * 10_000) / 10,
      gasTopUps: (await gasTopUps()) - topUpsBefore,
      invariantViolations: await violations(users, withdrawalIds, funded, amount, fee, destinations),
    }
  }

  return [
    {
      name: `${wallets * perWallet} withdrawals from ${wallets} funded wallets until all landed on chain`,
      async run() {
        const users = await fundedWallets(wallets, BigInt(perWallet) * (USDC + USDC / 10n))
        return payout(users, perWallet, 20)
      },
    },
    {
      name: `${oneWallet} withdrawals from one wallet until all landed on chain`,
      async run() {
        const users = await fundedWallets(1, BigInt(oneWallet) * (USDC + USDC / 10n))
        return payout(users, oneWallet, 20)
      },
    },
  ]
}
