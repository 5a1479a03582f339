// The load generator of the two-process live case (bench/live-scale.ts), forked as a child so that
// the sockets' client side shares no event loop with the services it measures. It opens its share
// of the sockets on GET /v1/live, then records for every socket each push it receives: the delay
// since the push was published (the publisher's wall clock travels in the push, one machine, one
// clock), any push received twice, any not addressed to the socket's user, any out of order, and
// sockets closed meanwhile.
//
// The client side is a minimal RFC 6455 client on `net` rather than the `ws` package: the handshake
// (its Sec-WebSocket-Accept checked), unmasked frames from the server parsed as they arrive
// (lengths of 7, 16 and 64 bits, fragments joined), pings answered with masked pongs, a close
// frame or a frame it cannot read ending the socket. Every socket reads into one shared buffer
// (`onread`), so a read allocates nothing. This process shares the machine's cores with the API
// processes it measures: the `ws` client's stream machinery cost it about three times as much CPU
// per message, and the time a push waits for its client's turn on a core is part of the delay
// this case reports.
import { createHash, randomBytes, randomFillSync } from 'node:crypto'
import { connect, type Socket } from 'node:net'

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
      /** the delays of the warm-up push (round -1), kept apart */
      warmUpLatencies: number[]
      missing: number
      duplicates: number
      foreign: number
      outOfOrder: number
      closed: number
    }

/** What the publisher puts in each push's data. */
export interface BenchPush {
  /** -1 for the warm-up push */
  round: number
  /** performance.timeOrigin + performance.now() of the publisher just before it published */
  sentAt: number
}

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
const OP = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const

interface Sock {
  socket: Socket
  userId: string
  /** the handshake's answer is read (frames follow) */
  upgraded: boolean
  /** the server's `ready` came: pushes are counted from here */
  ready: boolean
  /** bytes of an incomplete frame (or answer) left over from the previous read */
  rest: Buffer | undefined
  /** payloads of a fragmented message so far */
  fragments: Buffer[] | undefined
  /** rounds received, for duplicates and order */
  seen: Set<number>
  last: number
}

const now = () => performance.timeOrigin + performance.now()
const socks: Sock[] = []
const latencies: number[] = []
const warmUpLatencies: number[] = []
let duplicates = 0
let foreign = 0
let outOfOrder = 0
let closed = 0
/** round → the users it was addressed to, and how many of this process's sockets got it */
const expected = new Map<number, { users: Set<string>; received: number; want: number }>()
/** every socket reads into this buffer; what a read leaves incomplete is copied out */
const shared = Buffer.allocUnsafe(256 * 1024)

function send(msg: FromLoad) {
  process.send!(msg)
}

function onPush(s: Sock, text: string, at: number) {
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
  ;(round < 0 ? warmUpLatencies : latencies).push(at - sentAt)
  if (exp) {
    exp.received++
    if (exp.received === exp.want) send({ type: 'round', round, received: exp.received })
  }
}

/** A masked control frame from the client (payloads of control frames are at most 125 bytes). */
function controlFrame(opcode: number, payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(6 + payload.length)
  frame[0] = 0x80 | opcode
  frame[1] = 0x80 | payload.length
  randomFillSync(frame, 2, 4)
  for (let i = 0; i < payload.length; i++) frame[6 + i] = payload[i]! ^ frame[2 + (i & 3)]!
  return frame
}

/**
 * The frames in `data` (this read, after what the previous one left): complete ones handled,
 * an incomplete tail kept. Answers false when the stream cannot be read (the socket is ended).
 */
function readFrames(s: Sock, data: Buffer, onText: (text: string) => void): boolean {
  let i = 0
  for (;;) {
    if (data.length - i < 2) break
    const b0 = data[i]!
    const b1 = data[i + 1]!
    if (b1 & 0x80) return false // a server never masks
    let len = b1 & 0x7f
    let head = 2
    if (len === 126) {
      if (data.length - i < 4) break
      len = data.readUInt16BE(i + 2)
      head = 4
    } else if (len === 127) {
      if (data.length - i < 10) break
      len = Number(data.readBigUInt64BE(i + 2))
      head = 10
    }
    if (data.length - i < head + len) break
    const payload = data.subarray(i + head, i + head + len)
    i += head + len
    const fin = (b0 & 0x80) !== 0
    const opcode = b0 & 0x0f
    if (opcode === OP.ping) s.socket.write(controlFrame(OP.pong, payload))
    else if (opcode === OP.close) return false
    else if (opcode === OP.text || opcode === OP.binary || opcode === OP.continuation) {
      if (opcode !== OP.continuation && s.fragments) return false
      if (opcode === OP.continuation && !s.fragments) return false
      if (!fin || s.fragments) {
        // copied: the shared buffer is overwritten by the next read
        s.fragments ??= []
        s.fragments.push(Buffer.from(payload))
        if (!fin) continue
        const whole = Buffer.concat(s.fragments)
        s.fragments = undefined
        onText(whole.toString('utf8'))
      } else onText(payload.toString('utf8'))
    }
  }
  s.rest = i < data.length ? Buffer.from(data.subarray(i)) : undefined
  return true
}

function open(target: LoadSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.url)
    const key = randomBytes(16).toString('base64')
    const accept = createHash('sha1')
      .update(key + WS_GUID)
      .digest('base64')
    let settled = false
    const fail = (err: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      s.socket.destroy()
      reject(err)
    }
    const onText = (text: string, at: number) => {
      if (s.ready) return onPush(s, text, at)
      if (!text.startsWith('{"type":"ready"')) return
      s.ready = true
      settled = true
      clearTimeout(timer)
      socks.push(s)
      resolve()
    }
    const s: Sock = {
      socket: connect({
        host: url.hostname,
        port: Number(url.port),
        noDelay: true,
        onread: {
          buffer: shared,
          callback(n: number, buf: Uint8Array) {
            const at = now()
            let data = Buffer.from(buf.buffer, buf.byteOffset, n)
            if (s.rest) data = Buffer.concat([s.rest, data])
            s.rest = undefined
            if (!s.upgraded) {
              const end = data.indexOf('\r\n\r\n')
              if (end < 0) {
                s.rest = Buffer.from(data)
                return true
              }
              const head = data.toString('latin1', 0, end)
              if (!/^HTTP\/1\.1 101 /.test(head)) {
                fail(new Error(head.split('\r\n')[0]))
                return false
              }
              if (
                !new RegExp(`\r\nsec-websocket-accept: *${accept.replace(/[+/=]/g, '\\$&')}\r?$`, 'im').test(
                  `${head}\r\n`,
                )
              ) {
                fail(new Error('bad Sec-WebSocket-Accept'))
                return false
              }
              s.upgraded = true
              data = data.subarray(end + 4)
            }
            if (!readFrames(s, data, (text) => onText(text, at))) {
              s.socket.destroy()
              return false
            }
            return true
          },
        },
      }),
      userId: target.userId,
      upgraded: false,
      ready: false,
      rest: undefined,
      fragments: undefined,
      seen: new Set(),
      last: -1,
    }
    const timer = setTimeout(() => fail(new Error('socket did not become ready within 60 s')), 60_000)
    s.socket.once('connect', () =>
      s.socket.write(
        `GET ${url.pathname}?token=${encodeURIComponent(target.token)} HTTP/1.1\r\n` +
          `Host: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    )
    s.socket.on('error', (err) => fail(err))
    s.socket.once('close', () => {
      if (s.ready) closed++
      else fail(new Error('socket closed before it was ready'))
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
    send({ type: 'report', latencies, warmUpLatencies, missing, duplicates, foreign, outOfOrder, closed })
  } else if (msg.cmd === 'close') {
    for (const s of socks) s.socket.destroy()
    process.exit(0)
  }
})
