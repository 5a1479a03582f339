// LISTEN on one channel over a dedicated connection: a `pg.Client` of its own on PostgreSQL
// (reconnecting with backoff when the connection is lost), PGlite's listen API when embedded.
import type { PGlite } from '@electric-sql/pglite'
import pg from 'pg'

export interface ChannelListener {
  close(): Promise<void>
  /** NOTIFY on the same channel, outside any transaction (PostgreSQL; throws while disconnected) */
  notify?(payload: string): Promise<void>
  /**
   * Resolves once every notification committed before the call has reached `onMessage`
   * (PostgreSQL; throws while disconnected). A round trip on the listening connection: the server
   * sends the notifications it holds for it before the answer. Calls made while one is in flight
   * share the next round trip, so many waiting requests cost one query.
   */
  sync?(): Promise<void>
}

export interface ListenHandlers {
  onMessage(payload: string): void
  /** after a reconnect: messages sent while the connection was down were missed */
  onReconnect?(): void
  /** the connection was lost: messages are missed until `onReconnect` */
  onLost?(): void
  onError?(err: Error): void
}

export async function listenPGlite(
  client: PGlite,
  channel: string,
  handlers: ListenHandlers,
): Promise<ChannelListener> {
  const unsubscribe = await client.listen(channel, (payload) => handlers.onMessage(payload))
  return {
    close: async () => {
      if (!client.closed) await unsubscribe().catch(() => {})
    },
  }
}

export async function listenPostgres(
  url: string,
  channel: string,
  handlers: ListenHandlers,
  opts: { maxBackoffMs?: number } = {},
): Promise<ChannelListener> {
  const maxBackoff = opts.maxBackoffMs ?? 5000
  let closed = false
  let client: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined
  let attempt = 0

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url })
    c.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload !== undefined) handlers.onMessage(msg.payload)
    })
    const lost = (err?: Error) => {
      if (client !== c) return
      client = undefined
      c.removeAllListeners('end')
      c.end().catch(() => {})
      handlers.onLost?.()
      if (err) handlers.onError?.(err)
      if (!closed) schedule()
    }
    c.on('error', (err) => lost(err))
    c.on('end', () => lost())
    client = c
    await c.connect()
    // What this connection sends is only notifications: no reason to wait for the disk.
    await c.query('SET synchronous_commit = off')
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
  }
  const schedule = () => {
    const delay = Math.min(maxBackoff, 100 * 2 ** attempt++)
    timer = setTimeout(() => {
      timer = undefined
      connect().then(
        () => {
          attempt = 0
          handlers.onReconnect?.()
        },
        (err: Error) => {
          if (client) {
            const c = client
            client = undefined
            c.removeAllListeners('end')
            c.end().catch(() => {})
          }
          handlers.onError?.(err)
          if (!closed) schedule()
        },
      )
    }, delay)
    timer.unref()
  }

  // One round trip at a time; calls made meanwhile share the one after it (it must start after them).
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const roundTrip = async () => {
    const c = client
    if (!c) throw new Error(`not connected to ${channel}`)
    await c.query('select 1')
  }
  const sync = (): Promise<void> => {
    if (!running) {
      running = roundTrip().finally(() => {
        running = undefined
      })
      return running
    }
    queued ??= running
      .catch(() => {})
      .then(() => {
        queued = undefined
        return sync()
      })
    return queued
  }

  await connect()
  return {
    sync,
    notify: async (payload) => {
      if (!client) throw new Error(`not connected to ${channel}`)
      await client.query('select pg_notify($1, $2)', [channel, payload])
    },
    close: async () => {
      closed = true
      if (timer) clearTimeout(timer)
      const c = client
      client = undefined
      if (c) {
        c.removeAllListeners('end')
        await c.end().catch(() => {})
      }
    },
  }
}
