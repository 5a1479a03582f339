// A transaction kept open on purpose: its work done and its locks held until the test releases it,
// so that another transaction can be seen waiting for it, or not.
import { sql } from 'kysely'
import type { Db, Tx } from '../../src/db/index.ts'

export interface HeldTransaction<A> {
  /** what the work answered */
  value: A
  /** ends the wait: the transaction commits; resolves once it has */
  release(): Promise<void>
}

/** Runs `work` in a transaction of `db` and answers once it is done, the transaction still open. */
export async function heldOpen<A>(db: Db, work: (tx: Tx) => Promise<A>): Promise<HeldTransaction<A>> {
  let open!: () => void
  const gate = new Promise<void>((resolve) => {
    open = resolve
  })
  let answered!: (value: A) => void
  let failed!: (err: unknown) => void
  const answer = new Promise<A>((resolve, reject) => {
    answered = resolve
    failed = reject
  })
  const holder = db.transaction().execute(async (tx) => {
    answered(await work(tx))
    await gate
  })
  // A failed work rejects the answer (before it, nothing waits on the holder).
  holder.catch(failed)
  const value = await answer
  return {
    value,
    release: async () => {
      open()
      await holder
    },
  }
}

/** Connections of `db`'s database whose statement waits for a lock another transaction holds
 * (PostgreSQL: the embedded database runs one transaction at a time). */
export async function lockWaiters(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(db)
  return rows[0]!.n
}
