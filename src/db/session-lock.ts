// A PostgreSQL session advisory lock held for as long as a process lives, on a connection of its
// own: what only one process may do on a database (run the in-process dev chain, whose journal is
// in that database) is refused to a second one.
import { sql } from 'kysely'
import type { Db } from './index.ts'

export interface HeldLock {
  release(): Promise<void>
}

/**
 * Takes the lock named `name` without waiting. Answers how to release it, or undefined when
 * another session holds it. The connection stays checked out of the pool until release.
 */
export function holdSessionLock(db: Db, name: string): Promise<HeldLock | undefined> {
  return new Promise((answer, fail) => {
    let release: () => void = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const held = db.connection().execute(async (conn) => {
      const got = await sql<{
        ok: boolean
      }>`select pg_try_advisory_lock(hashtextextended(${name}, 0)) as ok`.execute(conn)
      if (!got.rows[0]?.ok) {
        answer(undefined)
        return
      }
      answer({
        release: async () => {
          release()
          await held
        },
      })
      await released
      await sql`select pg_advisory_unlock(hashtextextended(${name}, 0))`.execute(conn)
    })
    held.catch(fail)
  })
}
