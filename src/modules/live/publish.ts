// Live pushes to users' sockets, from any process: a `pg_notify` on one channel inside the
// caller's transaction, so PostgreSQL delivers it to every listening API process on commit and
// never for a rolled-back change. A payload over NOTIFY's 8000-byte limit is stored in
// `live_messages` in the same transaction and the notification carries only its id.
import { Buffer } from 'node:buffer'
import { writeAhead } from '../../db/ahead.ts'
import type { Write } from '../../db/compose.ts'
import type { Executor } from '../../db/index.ts'
import { newId } from '../../platform/crypto/ids.ts'
import { liveRepo } from './repo.ts'

export const LIVE_CHANNEL = 'live_events'
/** below PostgreSQL's 8000 bytes, with room for the envelope */
export const NOTIFY_MAX_BYTES = 7900

export interface LivePush {
  /** the users whose sockets receive it */
  userIds: string[]
  /** the socket message's `type` (e.g. `notification`, `wallet.deposit`, `chat.message`) */
  type: string
  data: unknown
}

/** What travels on the channel: the push itself, a reference to a stored one, or a request to
 * process `p` to close the `n` oldest sockets of user `u` (the account is past its cap). */
export type LiveWire =
  | { u: string[]; t: string; d: unknown }
  | { ref: string }
  | { close: { p: string; u: string; n: number } }

/**
 * Pushes `push` at the commit of `tx`. `writes` of other modules (src/db/compose.ts) travel in the
 * notification's statement, made whether or not anyone is to be told.
 */
export async function publishLive(
  tx: Executor,
  push: LivePush,
  writes: readonly Write[] = [],
): Promise<void> {
  const userIds = [...new Set(push.userIds)]
  if (userIds.length === 0) {
    await writeAhead(tx, writes)
    return
  }
  const body = JSON.stringify({ u: userIds, t: push.type, d: push.data ?? null })
  if (Buffer.byteLength(body) <= NOTIFY_MAX_BYTES) {
    await liveRepo.notify(tx, LIVE_CHANNEL, body, writes)
    return
  }
  const id = newId()
  await liveRepo.storeMessage(tx, id, body)
  await liveRepo.notify(tx, LIVE_CHANNEL, JSON.stringify({ ref: id }), writes)
}
