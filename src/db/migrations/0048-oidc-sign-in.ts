// OpenID Connect sign-in (Google): the pending authorization requests (state, PKCE verifier and
// nonce, single use, short-lived) and the provider identities linked to accounts.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table oidc_states (
      state_hash text primary key,
      code_verifier text not null,
      nonce text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz
    )`.execute(db)
  await sql`create index oidc_states_expires_at on oidc_states (expires_at)`.execute(db)
  await sql`
    create table oidc_identities (
      issuer text not null,
      subject text not null,
      user_id char(24) not null references users (id),
      email text not null,
      created_at timestamptz not null,
      last_sign_in_at timestamptz not null,
      primary key (issuer, subject)
    )`.execute(db)
  await sql`create index oidc_identities_user_id on oidc_identities (user_id)`.execute(db)
}
