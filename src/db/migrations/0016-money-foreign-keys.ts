// Foreign keys on every money link that had none: a transfer's funding and credit accounts, the
// records a withdrawal and an escrow leg point at, an escrow's in-app payment, and the escrow a
// collection is paid through (deferred: a collection and its escrow name each other).
import { type Kysely, sql } from 'kysely'

const links: [table: string, column: string, target: string, deferred?: boolean][] = [
  ['outgoing_transfers', 'funding_account_id', 'ledger_accounts'],
  ['outgoing_transfers', 'credit_account_id', 'ledger_accounts'],
  ['withdrawals', 'transaction_id', 'transactions'],
  ['escrow_legs', 'outgoing_id', 'outgoing_transfers'],
  ['escrow_legs', 'transaction_id', 'transactions'],
  ['escrows', 'pay_transfer_id', 'outgoing_transfers'],
  ['collections', 'escrow_id', 'escrows', true],
]

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column, target, deferred] of links) {
    await sql`
      alter table ${sql.table(table)}
        add constraint ${sql.id(`${table}_${column}_fkey`)}
        foreign key (${sql.ref(column)}) references ${sql.table(target)} (id)
        ${deferred ? sql`deferrable initially deferred` : sql``}`.execute(db)
  }
  // Lookups from the referenced side (deleting or checking a referenced row) stay indexed.
  await sql`create index if not exists escrow_legs_outgoing on escrow_legs (outgoing_id) where outgoing_id is not null`.execute(
    db,
  )
}
