// The live hub's settings and the close codes its clients see.
import { LIVE_SOCKETS_PER_USER } from '../../http/write-limits.ts'

export interface LiveOptions {
  /** ping every socket this often; one that has not answered the previous ping is closed */
  heartbeatMs: number
  /** a socket with more than this many bytes waiting to be sent is dropped */
  maxBufferedBytes: number
  /** how long a socket may stay unauthenticated waiting for its `auth` message */
  authTimeoutMs: number
  /** open sockets one account may hold across every API process: a new one closes the oldest
   * (4429) in this process, or asks the process that holds the most of them to close its oldest */
  maxSocketsPerUser: number
  /** sockets one push is written to before its delivery yields to the event loop (requests,
   * pongs, the LISTEN connection); later pushes wait for it, so each socket keeps the order */
  fanoutBatch: number
}

export const defaultLiveOptions: LiveOptions = {
  heartbeatMs: 25_000,
  maxBufferedBytes: 1024 * 1024,
  authTimeoutMs: 10_000,
  maxSocketsPerUser: LIVE_SOCKETS_PER_USER,
  fanoutBatch: 1000,
}

/** Close codes the client sees. */
export const CLOSE = {
  unauthenticated: 4401,
  slow: 4408,
  goingAway: 1001,
  badMessage: 1003,
  /** the account opened more sockets than it may hold: this one, its oldest, is closed */
  tooMany: 4429,
} as const
