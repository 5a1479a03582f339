// The one UPDATE of a users row by id that the modules share: every change of an account's row
// stamps `updatedAt` and bumps `version` with it, so a change never goes out without either.
import type { Updateable } from 'kysely'
import type { Executor } from './index.ts'
import type { DB } from './types.ts'

export function updateUserRow(ex: Executor, userId: string, change: Updateable<DB['users']>, now: Date) {
  return ex
    .updateTable('users')
    .set((eb) => ({ ...change, updatedAt: now, version: eb('version', '+', 1) }))
    .where('id', '=', userId)
    .execute()
}
