// The PostgreSQL settings a service that moves money cannot run without. The API answers a
// transfer, a withdrawal or an escrow payment once its transaction has committed; with `fsync` off
// the server does not force its log to disk, and with `synchronous_commit` off a commit returns
// before its log record is on disk, so in a crash of the database's machine an answered change can
// be lost (fsync off can also leave the files corrupt). Both make the database faster, and both are
// refused in production: the process exits at start, naming them. Outside production they are
// logged as warnings (a scratch server may run so). Two more are only warned about: `autovacuum`
// off (nothing then keeps the visibility map and the statistics current, and the reads slow down
// unless the operator vacuums on a schedule) and `full_page_writes` off (safe only on a file system
// that never writes a page in part, such as ZFS).
//
// The values read are those of the service's own session (`pg_settings`), so a setting made for
// its database or its role (`alter database … set synchronous_commit = off`) counts as much as
// the server's. `synchronous_commit` levels other than `off` (`local`, `remote_write`, `on`,
// `remote_apply`) all wait for the commit's own log flush and are accepted.
import { sql } from 'kysely'
import type { Executor } from './index.ts'

export interface Durability {
  /** settings that can lose an answered change: refused in production */
  refused: string[]
  /** settings that only cost speed or need the operator's care */
  warnings: string[]
}

/** Each setting that must not be `off`, whether `off` is refused in production, and why. */
const RULES = [
  {
    name: 'fsync',
    refused: true,
    message:
      'PostgreSQL runs with fsync = off: a crash of its machine can lose committed transfers or corrupt the database',
  },
  {
    name: 'synchronous_commit',
    refused: true,
    message:
      "PostgreSQL commits without waiting for its log (synchronous_commit = off, for the server, this database or this role): a crash can lose a transfer the API has answered; set it to 'on'",
  },
  {
    name: 'full_page_writes',
    refused: false,
    message:
      'PostgreSQL runs with full_page_writes = off: safe only on a file system that never writes a page in part (ZFS, for one)',
  },
  {
    name: 'autovacuum',
    refused: false,
    message:
      'PostgreSQL runs with autovacuum = off: vacuum and analyze the database on a schedule, or reads slow down as it changes',
  },
] as const

/** The verdict on the settings read (a missing one counts as PostgreSQL's default). */
export function judgeSettings(settings: Readonly<Record<string, string | undefined>>): Durability {
  const verdict: Durability = { refused: [], warnings: [] }
  for (const rule of RULES)
    if (settings[rule.name] === 'off') (rule.refused ? verdict.refused : verdict.warnings).push(rule.message)
  return verdict
}

/** The values of the named settings in a session of `db` (a PostgreSQL server's), by name. */
export async function sessionSettings(
  db: Executor,
  names: readonly string[],
): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings where name in (${sql.join(names)})`.execute(db)
  return Object.fromEntries(rows.map((r) => [r.name, r.setting]))
}

/** The verdict on the settings of a session of `db` (a PostgreSQL server's). */
export async function serverDurability(db: Executor): Promise<Durability> {
  const settings = await sessionSettings(
    db,
    RULES.map((r) => r.name),
  )
  return judgeSettings(settings)
}
