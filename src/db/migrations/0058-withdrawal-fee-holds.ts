// A withdrawal reserves its network fee with a hold of its own (`withdrawals.fee_hold_id`), which
// the withdrawal's outcome handlers post to the address's treasury account or void; its transfer's
// funding hold reserves exactly the amount sent. Settlement no longer books postings a caller
// asked for with the outcome: `outgoing_postings` is no longer written. It stays, read-only, as the
// history the operator's transfer detail shows for transfers settled before (their fee postings
// and the ledger transfers that booked them).
// Withdrawals still open the old way (an open transfer funded by one pending hold of amount + fee)
// are split here, in the migration's one transaction, without moving value: the funding hold
// shrinks to the amount and a new pending hold of the fee takes its place on the same account (the
// account's held total is unchanged), and the transfer's unbooked fee posting is dropped.
// `splitOpenWithdrawals` only touches withdrawals without a fee hold, so it splits nothing twice.
import { createHash } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { newId } from '../../platform/crypto/ids.ts'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table withdrawals add column fee_hold_id char(24) unique references ledger_holds (id)`.execute(
    db,
  )
  await splitOpenWithdrawals(db)
}

interface Open {
  id: string
  fee: string
  amount: string
  transferId: string
  holdId: string
  holdKind: string
  accountId: string
  coin: string
}

/**
 * Splits the amount + fee hold of each withdrawal whose transfer is open into the amount (the
 * transfer's funding hold) and a fee hold linked to the withdrawal. Answers how many were split.
 * Exported for its test.
 */
export async function splitOpenWithdrawals(db: Kysely<any>): Promise<number> {
  const now = new Date()
  const { rows } = await sql<Open>`
    select w.id, w.fee::text as fee, w.amount::text as amount, t.id as transfer_id,
           h.id as hold_id, h.kind as hold_kind, h.account_id, h.coin
    from withdrawals w
    join outgoing_transfers t on t.id = w.outgoing_id
    join ledger_holds h on h.id = t.funding_hold_id
    where w.fee_hold_id is null and w.fee > 0
      and t.status in ('queued', 'signed', 'sent') and t.amount = w.amount
      and h.status = 'pending' and h.amount = w.amount + w.fee
    order by w.created_at, w.id`.execute(db)
  for (const w of rows) {
    const feeHoldId = newId()
    // The key, kind and input hash the code gives a fee hold, so that the hold reads as one it took.
    const feeKey = `withdrawal:${w.id}:fee-hold`
    const feeHash = holdHash({ coin: w.coin, account: w.accountId, amount: w.fee, kind: 'withdrawal.fee' })
    await sql`
      insert into ledger_holds (id, idempotency_key, input_hash, account_id, coin, amount, kind, description, created_at)
      values (${feeHoldId}, ${feeKey}, ${feeHash}, ${w.accountId}, ${w.coin}, ${w.fee}::numeric,
              'withdrawal.fee', ${`Withdrawal ${w.id}: network fee held`}, ${now})`.execute(db)
    // The funding hold keeps its key; its input hash becomes the one of a hold of the amount, so
    // a client's retry of the request (same Idempotency-Key) still finds this withdrawal.
    const valueHash = holdHash({ coin: w.coin, account: w.accountId, amount: w.amount, kind: w.holdKind })
    await sql`
      update ledger_holds set amount = ${w.amount}::numeric, input_hash = ${valueHash}
      where id = ${w.holdId} and status = 'pending'`.execute(db)
    await sql`update withdrawals set fee_hold_id = ${feeHoldId} where id = ${w.id}`.execute(db)
    await sql`
      delete from outgoing_postings
      where transfer_id = ${w.transferId} and ledger_transfer_id is null`.execute(db)
  }
  return rows.length
}

/** The input hash the ledger stores with a hold it takes (as `ledger/write.ts` computes it). */
function holdHash(h: { coin: string; account: string; amount: string; kind: string }) {
  const input = { op: 'hold', coin: h.coin, account: h.account, amount: h.amount, kind: h.kind }
  return createHash('sha256').update(JSON.stringify(input)).digest('hex')
}
