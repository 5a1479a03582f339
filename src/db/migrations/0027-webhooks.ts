// Webhooks: the HTTPS endpoints integrators register (for their account, or one per collection
// as its `paymentWebHook`), each with its own signing secret sealed at rest, and one delivery row
// per (endpoint, event) with its attempts, last answer and next attempt.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id char(24) primary key,
      owner_id char(24) not null references users (id),
      -- set for a collection's paymentWebHook: at most one endpoint per collection
      collection_id char(24) unique references collections (id),
      url text not null,
      description text not null default '',
      -- the event types delivered (a collection's endpoint: the money events of that collection)
      events text[] not null,
      -- the signing secret, sealed with the key-encryption key (associated data: the endpoint id)
      secret_sealed text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`.execute(db)
  await sql`create index webhook_endpoints_owner on webhook_endpoints (owner_id, created_at desc, id desc)`.execute(
    db,
  )

  await sql`
    create table webhook_deliveries (
      id char(24) primary key,
      endpoint_id char(24) not null references webhook_endpoints (id) on delete cascade,
      event_id char(24) not null references events (id),
      event_type text not null,
      -- the exact JSON sent on every attempt
      body text not null,
      -- pending (an attempt is due), delivered (a 2xx answer) or failed (attempts exhausted)
      status text not null default 'pending',
      attempts integer not null default 0,
      max_attempts integer not null,
      last_status_code integer,
      last_error text,
      response_excerpt text,
      next_attempt_at timestamptz,
      last_attempt_at timestamptz,
      delivered_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (endpoint_id, event_id)
    )`.execute(db)
  await sql`create index webhook_deliveries_log on webhook_deliveries (endpoint_id, created_at desc, id desc)`.execute(
    db,
  )
}
