// Every transfer from a custodial address is reserved by one pending ledger hold. Escrow legs used
// to be funded by the escrow's account itself (debited when mined, the legs not yet mined taken off
// what the escrow could still give away): each leg still open gets the pending hold of its amount
// on its funding account that the code now takes when it queues a leg, and the transfer is linked
// to it (`funding_hold_id`), so that its outcome posts or voids exactly that hold. Done here, in
// the migration (one transaction with the schema's other changes, under the migrator's lock, once),
// rather than in a start-up step: nothing may send or settle such a transfer before it has its
// hold. `convertOpenTransfers` only touches transfers without a hold, so it converts nothing twice.
import { type Kysely, sql } from 'kysely'
import { newId } from '../../platform/crypto/ids.ts'

export async function up(db: Kysely<any>): Promise<void> {
  await convertOpenTransfers(db)
}

interface Open {
  id: string
  purpose: string
  coin: string
  amount: string
  fundingAccountId: string
}

/**
 * Gives each open transfer from a custodial address funded by an account (and no hold) a pending
 * hold of its amount on that account. Answers how many were converted. Exported for its test.
 */
export async function convertOpenTransfers(db: Kysely<any>): Promise<number> {
  const now = new Date()
  const { rows } = await sql<Open>`
    select t.id, t.purpose, t.coin, t.amount::text as amount, t.funding_account_id
    from outgoing_transfers t
    where t.status in ('queued', 'signed', 'sent') and t.from_kind <> 'platform'
      and t.funding_hold_id is null and t.funding_account_id is not null
    order by t.created_at, t.id`.execute(db)
  for (const t of rows) {
    const holdId = newId()
    // The key and kind the code uses for a leg's hold (`escrow-leg:<leg>:<attempt>:hold`) are not
    // known from the transfer alone; the transfer's own id keys it, so it cannot collide.
    await sql`
      insert into ledger_holds (id, idempotency_key, input_hash, account_id, coin, amount, kind, description, created_at)
      values (${holdId}, ${`outgoing:${t.id}:funding-hold`}, '', ${t.fundingAccountId}, ${t.coin},
              ${t.amount}::numeric, ${t.purpose}, ${`Reservation of outgoing transfer ${t.id}`}, ${now})`.execute(
      db,
    )
    await sql`
      update ledger_accounts set held = held + ${t.amount}::numeric, updated_at = ${now}
      where id = ${t.fundingAccountId}`.execute(db)
    await sql`update outgoing_transfers set funding_hold_id = ${holdId} where id = ${t.id}`.execute(db)
  }
  return rows.length
}
