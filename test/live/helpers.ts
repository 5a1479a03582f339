// Two API processes on one database (two apps built on it, each with its own LISTEN connection
// and process id), listening on loopback ports, and a WebSocket client that waits for messages.
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import WebSocket from 'ws'
import { buildApp } from '../../src/app.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

export interface Pair {
  a: TestApp
  b: FastifyInstance
  urlA: string
  urlB: string
  close(): Promise<void>
}

export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  return `ws://127.0.0.1:${port}/v1/live`
}

export async function createPair(): Promise<Pair> {
  const a = await createTestApp()
  const b = await buildApp({ config: a.config, database: a.database, clock: a.clock, logger: false })
  await b.ready()
  const urlA = await listen(a.app)
  const urlB = await listen(b)
  return {
    a,
    b,
    urlA,
    urlB,
    async close() {
      await b.close()
      await a.close()
    },
  }
}

export interface LiveMessage {
  type: string
  id?: unknown
  data: any
}

export class Client {
  readonly messages: LiveMessage[] = []
  closed: { code: number; reason: string } | undefined
  #waiters: Array<() => void> = []
  #seq = 0

  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      this.messages.push(JSON.parse(String(raw)))
      this.#wake()
    })
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) }
      this.#wake()
    })
  }

  #wake() {
    for (const w of this.#waiters.splice(0)) w()
  }

  /** The first message (from the start) matching, waiting up to `ms` for it. */
  next(pred: (m: LiveMessage) => boolean, ms = 5000): Promise<LiveMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching message in ${ms} ms; got ${JSON.stringify(this.messages)}`)),
        ms,
      )
      const check = () => {
        const found = this.messages.find(pred)
        if (found) {
          clearTimeout(timer)
          resolve(found)
        } else this.#waiters.push(check)
      }
      check()
    })
  }

  nextOfType(type: string, ms = 5000) {
    return this.next((m) => m.type === type, ms)
  }

  /** Waits for the socket to be closed by the server. */
  closedWith(ms = 5000): Promise<{ code: number; reason: string }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the socket stayed open')), ms)
      const check = () => {
        if (this.closed) {
          clearTimeout(timer)
          resolve(this.closed)
        } else this.#waiters.push(check)
      }
      check()
    })
  }

  /** Sends a request and waits for its answer (`ack` or `error` with the same id). */
  async request(type: string, data: unknown, ms = 5000): Promise<LiveMessage> {
    const id = `r${++this.#seq}`
    this.ws.send(JSON.stringify({ type, id, data }))
    return this.next((m) => m.id === id, ms)
  }

  close() {
    this.ws.close()
  }
}

/** Opens a socket; the token goes in the Authorization header unless `via` says otherwise. */
export async function connect(
  url: string,
  token?: string,
  via: 'header' | 'query' | 'message' = 'header',
): Promise<Client> {
  const target = via === 'query' && token ? `${url}?token=${encodeURIComponent(token)}` : url
  const ws = new WebSocket(
    target,
    via === 'header' && token ? { headers: { authorization: `Bearer ${token}` } } : {},
  )
  const client = new Client(ws)
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { statusCode: res.statusCode })),
    )
    ws.once('error', reject)
  })
  if (via === 'message' && token) ws.send(JSON.stringify({ type: 'auth', data: { token } }))
  return client
}

/** Opens an authenticated socket and waits until the server has registered it. */
export async function connectReady(
  url: string,
  token: string,
  via: 'header' | 'query' | 'message' = 'header',
) {
  const client = await connect(url, token, via)
  await client.nextOfType('ready')
  return client
}
