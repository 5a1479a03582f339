// Reservations become two-phase ledger holds. A withdrawal, an in-app escrow payment and the gas
// of a transfer from a custodial address no longer move value into a `withdrawal_hold` account:
// a pending hold on the paying account (the user's wallet, the address's treasury account)
// reserves it, and the transfer's outcome posts that hold (in full or in part) or voids it.
// - `outgoing_transfers.funding_hold_id`: the hold the transfer's value (and the postings of its
//   success) is posted from; `gas_hold_id`: the hold of its gas reservation.
// - `withdrawals.hold_id`, `escrows.pay_hold_id`: the hold of the withdrawal / latest payment.
// Value parked in `withdrawal_hold` accounts for transfers still open is moved back to the
// paying account and held there (`convertParkedHolds`). The account kind stays in the schema
// (old rows and entries keep it) but nothing posts to it any more.
import { createHash } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { newId } from '../../platform/crypto/ids.ts'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table outgoing_transfers
      add column funding_hold_id char(24) unique references ledger_holds (id),
      add column gas_hold_id char(24) unique references ledger_holds (id)`.execute(db)
  await sql`alter table withdrawals add column hold_id char(24) unique references ledger_holds (id)`.execute(
    db,
  )
  await sql`alter table escrows add column pay_hold_id char(24) references ledger_holds (id)`.execute(db)
  await sql`create index escrows_pay_hold on escrows (pay_hold_id) where pay_hold_id is not null`.execute(db)
  await convertParkedHolds(db)
}

const OPEN = sql`('queued', 'signed', 'sent')`

interface Parked {
  id: string
  purpose: string
  referenceId: string
  coin: string
  fromAddress: string
  amount: string
  parkedAccountId: string
  ownerId: string
  completedTotal: string
  failedTotal: string
  gasReserved: string
}

/**
 * Moves what open transfers parked in `withdrawal_hold` accounts back to the paying account and
 * holds it there instead: the value of withdrawals and in-app payments (back to the user's
 * wallet, held by a hold the transfer's outcome posts or voids), and gas reservations (back to the
 * address's treasury account). Each conversion is a balanced ledger transfer of its own; running
 * it again converts nothing twice. Exported for the migration test.
 */
export async function convertParkedHolds(db: Kysely<any>): Promise<{ value: number; gas: number }> {
  const now = new Date()
  // Value: transfers whose funding account is a `withdrawal_hold` account of a user.
  const { rows: parked } = await sql<Parked>`
    select t.id, t.purpose, t.reference_id, t.coin, t.from_address, t.amount::text as amount,
           a.id as parked_account_id, a.owner_id,
           coalesce((select sum(p.amount) from outgoing_postings p
                     where p.transfer_id = t.id and p.outcome = 'completed'), 0)::text as completed_total,
           coalesce((select sum(p.amount) from outgoing_postings p
                     where p.transfer_id = t.id and p.outcome = 'failed'), 0)::text as failed_total,
           t.gas_reserved::text as gas_reserved
    from outgoing_transfers t join ledger_accounts a on a.id = t.funding_account_id
    where a.kind = 'withdrawal_hold' and t.status in ${OPEN} and t.funding_hold_id is null
    order by t.created_at, t.id`.execute(db)
  for (const p of parked) {
    // What the hold reserved: the value and what its success posts (a withdrawal's fee); what a
    // failure gave back is the same sum, and the larger one is taken should they differ.
    const onSuccess = BigInt(p.amount) + BigInt(p.completedTotal)
    const failed = BigInt(p.failedTotal)
    const amount = onSuccess > failed ? onSuccess : failed
    const wallet = await ensureAccount(db, 'user', p.ownerId, p.coin, now)
    const kind =
      p.purpose === 'withdrawal' ? 'withdrawal' : p.purpose === 'escrow.pay' ? 'escrow.pay' : p.purpose
    // A withdrawal's hold takes the key of the transfer that parked its value (the client's
    // Idempotency-Key, or the withdrawal's own), with the input hash a new request would have: a
    // retry of the request after the upgrade answers this withdrawal.
    const requestKey =
      p.purpose === 'withdrawal'
        ? (
            await sql<{ key: string }>`
              select lt.idempotency_key as key
              from withdrawals w join transactions t on t.id = w.transaction_id
                join ledger_transfers lt on lt.id = t.transfer_id
              where w.id = ${p.referenceId}`.execute(db)
          ).rows[0]?.key
        : undefined
    const holdId = await moveAndHold(db, {
      key: `hold-convert:${p.id}`,
      ...(requestKey
        ? { holdKey: requestKey, inputHash: holdHash({ coin: p.coin, account: wallet, amount, kind }) }
        : {}),
      coin: p.coin,
      from: p.parkedAccountId,
      to: wallet,
      amount,
      kind,
      description: `Reservation of outgoing transfer ${p.id}`,
      now,
    })
    await sql`
      update outgoing_transfers set funding_hold_id = ${holdId}, funding_account_id = ${wallet}
      where id = ${p.id}`.execute(db)
    // A void gives everything back: the failure postings that did so are dropped.
    await sql`
      delete from outgoing_postings
      where transfer_id = ${p.id} and outcome = 'failed' and ledger_transfer_id is null`.execute(db)
    if (p.purpose === 'withdrawal')
      await sql`update withdrawals set hold_id = ${holdId} where id = ${p.referenceId}`.execute(db)
    if (p.purpose === 'escrow.pay')
      await sql`
        update escrows set pay_hold_id = ${holdId}
        where id = ${p.referenceId} and pay_transfer_id = ${p.id}`.execute(db)
  }

  // Gas: open transfers from custodial addresses with a reservation parked at `gas:<address>`.
  const { rows: gas } = await sql<{ id: string; fromAddress: string; gasReserved: string }>`
    select t.id, t.from_address, t.gas_reserved::text as gas_reserved
    from outgoing_transfers t
    where t.status in ${OPEN} and t.from_kind <> 'platform' and t.gas_reserved > 0 and t.gas_hold_id is null
    order by t.created_at, t.id`.execute(db)
  let gasConverted = 0
  for (const g of gas) {
    const { rows: reserve } = await sql<{ id: string; coin: string; balance: string }>`
      select id, coin, balance::text as balance from ledger_accounts
      where kind = 'withdrawal_hold' and owner_id = ${`gas:${g.fromAddress}`} and balance > 0
      order by coin limit 1`.execute(db)
    const from = reserve[0]
    if (!from) continue
    const treasury = await ensureAccount(db, 'treasury', g.fromAddress, from.coin, now)
    // The reservation as booked (never more than the reserve holds: a shortfall was there before).
    const amount = BigInt(g.gasReserved) < BigInt(from.balance) ? BigInt(g.gasReserved) : BigInt(from.balance)
    const holdId = await moveAndHold(db, {
      key: `gas-convert:${g.id}`,
      coin: from.coin,
      from: from.id,
      to: treasury,
      amount,
      kind: 'gas',
      description: `Gas reserved for outgoing transfer ${g.id}`,
      now,
    })
    await sql`
      update outgoing_transfers set gas_hold_id = ${holdId}, gas_reserved = ${amount.toString()}::numeric
      where id = ${g.id}`.execute(db)
    gasConverted++
  }
  return { value: parked.length, gas: gasConverted }
}

async function ensureAccount(db: Kysely<any>, kind: string, ownerId: string, coin: string, now: Date) {
  await sql`
    insert into ledger_accounts (id, kind, owner_id, coin, balance, created_at, updated_at)
    values (${newId()}, ${kind}, ${ownerId}, ${coin}, 0, ${now}, ${now})
    on conflict (kind, owner_id, coin) do nothing`.execute(db)
  const { rows } = await sql<{ id: string }>`
    select id from ledger_accounts where kind = ${kind} and owner_id = ${ownerId} and coin = ${coin}`.execute(
    db,
  )
  return rows[0]!.id
}

/** The input hash the ledger stores with a hold (as of this migration). */
function holdHash(h: { coin: string; account: string; amount: bigint; kind: string }) {
  const input = { op: 'hold', coin: h.coin, account: h.account, amount: h.amount.toString(), kind: h.kind }
  return createHash('sha256').update(JSON.stringify(input)).digest('hex')
}

/** One balanced transfer `from` → `to`, then a pending hold of the same amount on `to`. */
async function moveAndHold(
  db: Kysely<any>,
  m: {
    key: string
    holdKey?: string
    inputHash?: string
    coin: string
    from: string
    to: string
    amount: bigint
    kind: string
    description: string
    now: Date
  },
): Promise<string> {
  const amount = m.amount.toString()
  const transferId = newId()
  await sql`
    insert into ledger_transfers (id, idempotency_key, coin, kind, description, created_at)
    values (${transferId}, ${`${m.key}:move`}, ${m.coin}, 'hold.convert', ${m.description}, ${m.now})`.execute(
    db,
  )
  await sql`
    insert into ledger_entries (transfer_id, account_id, coin, amount, created_at)
    values (${transferId}, ${m.from}, ${m.coin}, ${`-${amount}`}::numeric, ${m.now}),
           (${transferId}, ${m.to}, ${m.coin}, ${amount}::numeric, ${m.now})`.execute(db)
  await sql`
    update ledger_accounts set balance = balance - ${amount}::numeric, updated_at = ${m.now}
    where id = ${m.from}`.execute(db)
  const holdId = newId()
  await sql`
    insert into ledger_holds (id, idempotency_key, input_hash, account_id, coin, amount, kind, description, created_at)
    values (${holdId}, ${m.holdKey ?? `${m.key}:hold`}, ${m.inputHash ?? ''}, ${m.to}, ${m.coin}, ${amount}::numeric, ${m.kind},
            ${m.description}, ${m.now})`.execute(db)
  await sql`
    update ledger_accounts
    set balance = balance + ${amount}::numeric, held = held + ${amount}::numeric, updated_at = ${m.now}
    where id = ${m.to}`.execute(db)
  return holdId
}
