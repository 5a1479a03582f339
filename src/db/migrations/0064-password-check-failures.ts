// The lock of an account's password checks and its wrong passwords in the window, in one call.
// The checks of one account run one at a time (a transaction-scoped advisory lock), and each must
// count the wrong passwords the checks before it wrote. A statement's snapshot is taken before it
// waits for a lock, so a count in the same statement as the lock would miss them; a VOLATILE
// function takes a fresh snapshot for each query it runs, so its count, after the lock, sees them.
import { type Kysely, sql } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function password_check_failures(p_user char(24), p_action text, p_since timestamptz)
      returns bigint
    language plpgsql volatile as $$
    begin
      perform pg_advisory_xact_lock(hashtextextended('password:' || p_user, 0));
      return (
        select count(*) from audit_log
        where user_id = p_user and action = p_action and created_at > p_since
      );
    end
    $$`.execute(db)
}
