// Unknown platform transfers re-attached to what they paid beyond withdrawals, or booked as a loss:
// - `record_kind` / `record_id`: the record a re-attached transaction settled (`withdrawal`, an
//   escrow's `escrowLeg`, a `feeSweep`), beside the existing `withdrawal_id` of withdrawals;
// - status `lost`: an operator booked the value it moved out of its address's owner account (an
//   escrow's, the fee account) as gone, with a reason, when no open record of the copy matches it.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table platform_transfer_findings
      add column record_kind text check (record_kind in ('withdrawal', 'escrowLeg', 'feeSweep')),
      add column record_id char(24)`.execute(db)
  await sql`update platform_transfer_findings set record_kind = 'withdrawal', record_id = withdrawal_id
    where withdrawal_id is not null`.execute(db)
  await sql`alter table platform_transfer_findings drop constraint if exists platform_transfer_findings_status_check`.execute(
    db,
  )
  await sql`
    alter table platform_transfer_findings add constraint platform_transfer_findings_status_check
      check (status in ('open', 'reattached', 'external', 'lost'))`.execute(db)
}
