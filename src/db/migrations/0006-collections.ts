// Collections (jobs and funding requests), one level of child collections, and the columns the
// escrow feature maintains. Every list filter has an index: full-text search over a generated
// tsvector (GIN), tag keys (GIN), price, type, status, creator, receiver, parent, meta.name.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table collections (
      id char(24) primary key,
      creator_id char(24) not null references users(id),
      receiver_id char(24) references users(id),
      escrow_id char(24),
      escrow_status text check (escrow_status in ('waiting', 'paid', 'released', 'cancelled')),
      escrow_paid boolean not null default false,
      is_funding_request boolean not null default false,
      parent_id char(24) references collections(id),
      is_parent_funded boolean not null default false,
      type text not null,
      name text not null,
      category text not null default '',
      description text not null default '',
      equity text not null default '',
      slug text not null,
      payment_fee numeric(14, 2) not null default 0 check (payment_fee >= 0),
      is_private boolean not null default false,
      delivery_date timestamptz,
      tags_data text[] not null default '{}',
      tag_ids text[] not null default '{}',
      tag_keys text[] not null default '{}',
      meta jsonb not null default '{}'::jsonb,
      status text not null default 'pending',
      payout_status text not null default 'awaiting',
      fee_payout_status text not null default 'awaiting',
      platform_fee_payout_status text not null default 'awaiting',
      failed_payout_count integer not null default 0,
      failed_fee_payout_count integer not null default 0,
      failed_platform_fee_payout_count integer not null default 0,
      payout_transactions text[] not null default '{}',
      invite_accepted boolean not null default false,
      recipient_completed_job boolean not null default false,
      score integer not null default 0,
      progress integer not null default 0,
      total_child_collections_count integer not null default 0 check (total_child_collections_count >= 0),
      total_child_collection_escrow_count integer not null default 0
        check (total_child_collection_escrow_count >= 0),
      search_text text not null default '',
      search_vector tsvector generated always as (to_tsvector('simple'::regconfig, search_text)) stored,
      is_deleted boolean not null default false,
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      version integer not null default 0
    )`.execute(db)
  // fastupdate off: collections are written rarely and read constantly, and a GIN pending list
  // (flushed only by vacuum, which embedded PGlite never runs on its own) is scanned linearly by
  // every search.
  await sql`create index collections_search on collections using gin (search_vector) with (fastupdate = off)`.execute(
    db,
  )
  await sql`create index collections_tag_keys on collections using gin (tag_keys) with (fastupdate = off)`.execute(
    db,
  )
  await sql`create index collections_price on collections (payment_fee)`.execute(db)
  await sql`create index collections_type on collections (type, created_at desc)`.execute(db)
  await sql`create index collections_status on collections (status, created_at desc)`.execute(db)
  await sql`create index collections_creator on collections (creator_id, created_at desc)`.execute(db)
  await sql`create index collections_receiver on collections (receiver_id) where receiver_id is not null`.execute(
    db,
  )
  await sql`create index collections_parent on collections (parent_id, created_at) where parent_id is not null`.execute(
    db,
  )
  await sql`create index collections_created on collections (created_at desc, id desc)`.execute(db)
  // Covers the visibility test, so the total of an unfiltered list is an index-only count.
  await sql`create index collections_visible on collections (is_private, creator_id, receiver_id) where is_deleted = false`.execute(
    db,
  )
  await sql`create index collections_meta_name on collections ((meta ->> 'name'))`.execute(db)
  await sql`create unique index collections_escrow on collections (escrow_id) where escrow_id is not null`.execute(
    db,
  )
  await sql`create index bookmarks_user_created on bookmarks (user_id, created_at desc)`.execute(db)
}
