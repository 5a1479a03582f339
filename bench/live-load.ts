// The load generator of the two-process live case (bench/live-scale.ts), forked as a child so that
// the sockets' client side shares no event loop with the services it measures. It opens its share
// of the sockets on GET /v1/live, then records for every socket each push it receives: the delay
// since the push was published (the publisher's wall clock travels in the push, one machine, one
// clock), any push received twice, any not addressed to the socket's user, any out of order, and
// sockets closed meanwhile.
import WebSocket from 'ws'

export interface LoadSocket {
  /** ws://…/v1/live of the process this socket goes to */
  url: string
  userId: string
  token: string
}

export type ToLoad =
  | { cmd: 'open'; sockets: LoadSocket[]; concurrency: number }
  | { cmd: 'expect'; round: number; userIds: string[] }
  | { cmd: 'report' }
  | { cmd: 'close' }

export type FromLoad =
  | { type: 'opened'; opened: number; failed: number; firstError?: string }
  | { type: 'round'; round: number; received: number }
  | {
      type: 'report'
      latencies: number[]
      missing: number
      duplicates: number
      foreign: number
      outOfOrder: number
      closed: number
    }

/** What the publisher puts in each push's data. */
export interface BenchPush {
  round: number
  /** performance.timeOrigin + performance.now() of the publisher just before it published */
  sentAt: number
}

interface Sock {
  ws: WebSocket
  userId: string
  /** rounds received, for duplicates and order */
  seen: Set<number>
  last: number
}

const now = () => performance.timeOrigin + performance.now()
const socks: Sock[] = []
const latencies: number[] = []
let duplicates = 0
let foreign = 0
let outOfOrder = 0
let closed = 0
/** round → the users it was addressed to, and how many of this process's sockets got it */
const expected = new Map<number, { users: Set<string>; received: number; want: number }>()

function send(msg: FromLoad) {
  process.send!(msg)
}

function onPush(s: Sock, raw: WebSocket.RawData) {
  const at = now()
  const text = String(raw)
  // only the bench's pushes are measured (`ready` and pongs are not)
  if (!text.startsWith('{"type":"bench.push"')) return
  const { round, sentAt } = (JSON.parse(text) as { data: BenchPush }).data
  const exp = expected.get(round)
  if (!exp?.users.has(s.userId)) foreign++
  if (s.seen.has(round)) {
    duplicates++
    return
  }
  if (round < s.last) outOfOrder++
  s.seen.add(round)
  s.last = Math.max(s.last, round)
  latencies.push(at - sentAt)
  if (exp) {
    exp.received++
    if (exp.received === exp.want) send({ type: 'round', round, received: exp.received })
  }
}

function open(target: { url: string; userId: string; token: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${target.url}?token=${encodeURIComponent(target.token)}`)
    const timer = setTimeout(() => {
      ws.terminate()
      reject(new Error('socket did not become ready within 60 s'))
    }, 60_000)
    ws.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    ws.on('message', function first(raw) {
      if (!String(raw).startsWith('{"type":"ready"')) return
      clearTimeout(timer)
      ws.off('message', first)
      const s: Sock = { ws, userId: target.userId, seen: new Set(), last: -1 }
      socks.push(s)
      ws.on('message', (m) => onPush(s, m))
      ws.once('close', () => closed++)
      resolve()
    })
  })
}

process.on('message', async (msg: ToLoad) => {
  if (msg.cmd === 'open') {
    let next = 0
    let failed = 0
    let firstError: string | undefined
    const worker = async () => {
      while (next < msg.sockets.length) {
        const target = msg.sockets[next++]!
        await open(target).catch((err: Error) => {
          failed++
          firstError ??= err.message
        })
      }
    }
    await Promise.all(Array.from({ length: msg.concurrency }, worker))
    send({ type: 'opened', opened: socks.length, failed, ...(firstError ? { firstError } : {}) })
  } else if (msg.cmd === 'expect') {
    const users = new Set(msg.userIds)
    const want = socks.filter((s) => users.has(s.userId)).length
    expected.set(msg.round, { users, received: 0, want })
    if (want === 0) send({ type: 'round', round: msg.round, received: 0 })
  } else if (msg.cmd === 'report') {
    let missing = 0
    for (const [round, exp] of expected)
      for (const s of socks) if (exp.users.has(s.userId) && !s.seen.has(round)) missing++
    send({ type: 'report', latencies, missing, duplicates, foreign, outOfOrder, closed })
  } else if (msg.cmd === 'close') {
    for (const s of socks) s.ws.terminate()
    process.exit(0)
  }
})
