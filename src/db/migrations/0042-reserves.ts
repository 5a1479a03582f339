// Proof of reserves: snapshots (one per coin and run, at one block), the reserve addresses with
// their on-chain balances and proof-of-control signatures, and the Merkle-sum tree of liabilities
// (every node, and the private facts of each leaf: its account label and whom it belongs to).
// Written once, in one transaction, and never changed: a trigger refuses updates and deletes (but
// the re-sealing of a snapshot's secret by a key-encryption-key rotation).
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table reserve_snapshots (
      id text primary key,
      run_id text not null,
      chain_id text not null,
      coin text not null,
      asset text not null,
      decimals integer not null,
      block_number bigint not null,
      block_hash text not null,
      taken_at timestamptz not null,
      root_hash text not null,
      liabilities_total numeric(78, 0) not null check (liabilities_total >= 0),
      reserves_total numeric(78, 0) not null check (reserves_total >= 0),
      leaf_count integer not null,
      message text not null,
      signature text not null,
      attestation_address text not null,
      sealed_secret text not null,
      trigger text not null,
      requested_by text
    )`.execute(db)
  await sql`create index reserve_snapshots_coin on reserve_snapshots (coin, taken_at desc)`.execute(db)
  await sql`create index reserve_snapshots_taken on reserve_snapshots (taken_at desc)`.execute(db)
  await sql`
    create table reserve_addresses (
      snapshot_id text not null,
      address text not null,
      balance numeric(78, 0) not null check (balance >= 0),
      signature text not null,
      primary key (snapshot_id, address)
    )`.execute(db)
  await sql`
    create table reserve_nodes (
      snapshot_id text not null,
      level integer not null,
      idx integer not null,
      hash text not null,
      sum numeric(78, 0) not null check (sum >= 0),
      primary key (snapshot_id, level, idx)
    )`.execute(db)
  await sql`
    create table reserve_leaves (
      snapshot_id text not null,
      idx integer not null,
      label text not null,
      user_id text,
      receiver_id text,
      primary key (snapshot_id, idx)
    )`.execute(db)
  await sql`create index reserve_leaves_user on reserve_leaves (user_id, snapshot_id) where user_id is not null`.execute(
    db,
  )
  await sql`
    create index reserve_leaves_receiver on reserve_leaves (receiver_id, snapshot_id)
      where receiver_id is not null`.execute(db)
  await sql`
    create function reserves_immutable() returns trigger language plpgsql as $$
    begin
      -- A rotation of the key-encryption key re-seals a snapshot's secret: that column alone may
      -- change (its value, once opened, stays the same).
      if tg_op = 'UPDATE' and tg_table_name = 'reserve_snapshots'
        and (to_jsonb(new) - 'sealed_secret') = (to_jsonb(old) - 'sealed_secret') then
        return new;
      end if;
      raise exception 'proof-of-reserves rows are never changed (%)', tg_table_name;
    end $$`.execute(db)
  for (const table of ['reserve_snapshots', 'reserve_addresses', 'reserve_nodes', 'reserve_leaves'])
    await sql`
      create trigger ${sql.raw(`${table}_immutable`)} before update or delete on ${sql.table(table)}
        for each row execute function reserves_immutable()`.execute(db)
}
