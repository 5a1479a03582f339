// A withdrawal written from now on with a fee has its fee hold. A process of a version from before
// 0058 (an API process left running through the upgrade) would write a withdrawal the old way, one
// hold of amount + fee and no fee hold, which a worker of this version settles by posting the amount
// alone: the fee would go back to the user and reconciliation would halt the coin. With this check
// such a write fails and its transaction (hold, record, transfer) rolls back: the request gets an
// error and nothing moves. `not valid`: withdrawals settled before 0058 keep no fee hold.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table withdrawals add constraint withdrawals_fee_held
      check (fee = 0 or fee_hold_id is not null) not valid`.execute(db)
}
