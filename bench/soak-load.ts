// The soak's load generator, in a child process of the bench (so that it does not share the
// service's event loop): live sockets held open for the whole run, and requests sent open-loop at
// a fixed rate (a tick that finds `maxInFlight` requests still waiting is counted as not sent, not
// delayed). Each minute it reports to the parent what was sent, answered, how fast and with which
// statuses; at the end, what the sockets saw. The mix and its flows are in soak-mix.ts.
import WebSocket from 'ws'
import { type Fixture, Mix, type Op } from './soak-mix.ts'

export interface LoadConfig extends Fixture {
  baseUrl: string
  seconds: number
  rate: number
  maxInFlight: number
  sockets: number
}

export interface MinuteReport {
  type: 'minute'
  minute: number
  ticks: number
  unsent: number
  answered: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** `<status> <operation>` → count, for every answer that was not 2xx (status 0: no answer) */
  errors: Record<string, number>
  /** the latest the tick loop ran behind its schedule in that minute */
  lagMs: number
  /** the three operations with the highest p99 that minute: `<operation> p50/p99 ms (count)` */
  slowest: string[]
}

export interface EndReport {
  type: 'end'
  socketsOpen: number
  socketsClosed: number
  socketMessages: number
  /** messages about a conversation the socket's user is not in */
  socketForeign: number
  inFlightAtEnd: number
  flows: Record<string, number>
  /** the first answers of each non-2xx kind (`<status> <operation>`), cut to 300 characters */
  errorSamples: Record<string, string[]>
  /** every operation over the whole run: `<operation>` → `p50/p99 ms (count)`, slowest p99 first */
  byOperation: Record<string, string>
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
const round = (n: number) => Math.round(n * 10) / 10

/** `<operation>` → its latencies, sorted by p99 (highest first) as `[name, "p50/p99 ms (count)"]` */
function byOperation(latencies: Map<string, number[]>): [string, string][] {
  return [...latencies]
    .map(([name, ms]) => {
      const sorted = ms.sort((a, b) => a - b)
      const p99 = percentile(sorted, 99)
      return { name, p99, text: `${round(percentile(sorted, 50))}/${round(p99)} ms (${sorted.length})` }
    })
    .sort((a, b) => b.p99 - a.p99)
    .map((o) => [o.name, o.text])
}

async function openSockets(cfg: LoadConfig) {
  const wsBase = cfg.baseUrl.replace(/^http/, 'ws')
  const state = { open: 0, closed: 0, messages: 0, foreign: 0, closing: false }
  const sockets: WebSocket[] = []
  const mine = (userId: string) =>
    new Set(cfg.conversations.filter((c) => c.users.includes(userId)).map((c) => c.id))
  for (let i = 0; i < cfg.sockets; i++) {
    const user = cfg.users[i % cfg.users.length]!
    const conversations = mine(user.id)
    const ws = new WebSocket(`${wsBase}/v1/live?token=${encodeURIComponent(user.token)}`)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket did not become ready')), 30_000)
      ws.once('error', reject)
      ws.on('message', (raw) => {
        const msg = JSON.parse(String(raw)) as { type: string; data?: { conversationId?: string } }
        if (msg.type === 'ready') {
          clearTimeout(timer)
          state.open++
          resolve()
          return
        }
        state.messages++
        const conversation = msg.data?.conversationId
        if (msg.type.startsWith('chat.') && conversation && !conversations.has(conversation)) state.foreign++
      })
    })
    ws.on('close', () => {
      if (!state.closing) state.closed++
    })
    sockets.push(ws)
  }
  return {
    state,
    close() {
      state.closing = true
      for (const ws of sockets) ws.terminate()
    },
  }
}

async function run(cfg: LoadConfig) {
  const send = (msg: MinuteReport | EndReport | { type: 'ready' }) =>
    new Promise<void>((resolve) => process.send!(msg, () => resolve()))
  const sockets = await openSockets(cfg)
  const mix = new Mix(cfg)
  await send({ type: 'ready' })

  let inFlight = 0
  const errorSamples: Record<string, string[]> = {}
  const runByOp = new Map<string, number[]>()
  let minute = newMinute(0)
  function newMinute(n: number) {
    return {
      n,
      ticks: 0,
      unsent: 0,
      latencies: [] as number[],
      byOp: new Map<string, number[]>(),
      errors: {} as Record<string, number>,
      lagMs: 0,
    }
  }
  const start = performance.now()
  const end = start + cfg.seconds * 1000
  const interval = 1000 / cfg.rate
  const lastMinute = Math.ceil(cfg.seconds / 60) - 1
  let nextTick = start
  const reports: Promise<void>[] = []

  const closeMinute = (upTo: number) => {
    while (minute.n < upTo) {
      const m = minute
      minute = newMinute(m.n + 1)
      const sorted = m.latencies.sort((a, b) => a - b)
      reports.push(
        send({
          type: 'minute',
          minute: m.n + 1,
          ticks: m.ticks,
          unsent: m.unsent,
          answered: sorted.length,
          p50Ms: round(percentile(sorted, 50)),
          p99Ms: round(percentile(sorted, 99)),
          maxMs: round(sorted.at(-1) ?? 0),
          errors: m.errors,
          lagMs: Math.round(m.lagMs),
          slowest: byOperation(m.byOp)
            .slice(0, 3)
            .map(([name, text]) => `${name} ${text}`),
        }),
      )
    }
  }

  const fire = (op: Op) => {
    inFlight++
    const t0 = performance.now()
    const done = (status: number, body = '') => {
      inFlight--
      const now = performance.now()
      // answers after the end (the drain) count in the last minute
      closeMinute(Math.min(lastMinute, Math.floor((now - start) / 60_000)))
      minute.latencies.push(now - t0)
      for (const map of [minute.byOp, runByOp]) {
        const list = map.get(op.name)
        if (list) list.push(now - t0)
        else map.set(op.name, [now - t0])
      }
      if (status < 200 || status > 299) {
        const key = `${status} ${op.name}`
        minute.errors[key] = (minute.errors[key] ?? 0) + 1
        errorSamples[key] ??= []
        if (errorSamples[key].length < 3) errorSamples[key].push(body.slice(0, 300))
      }
    }
    fetch(`${cfg.baseUrl}${op.path}`, {
      method: op.method,
      headers: {
        ...(op.token ? { authorization: `Bearer ${op.token}` } : {}),
        ...(op.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...op.headers,
      },
      ...(op.body !== undefined ? { body: JSON.stringify(op.body) } : {}),
    })
      .then(async (res) => {
        const text = await res.text()
        done(res.status, text)
        op.onAnswer?.(res.status, text)
      })
      .catch(() => {
        done(0)
        op.onAnswer?.(0, '')
      })
  }

  // Ticks on schedule: every pass sends the ticks whose time has come (the timer's own delay
  // never lowers the rate), each one sent only if fewer than maxInFlight requests are waiting.
  while (performance.now() < end) {
    const now = performance.now()
    closeMinute(Math.min(lastMinute, Math.floor((now - start) / 60_000)))
    minute.lagMs = Math.max(minute.lagMs, now - nextTick)
    while (nextTick <= now && nextTick < end) {
      minute.ticks++
      if (inFlight >= cfg.maxInFlight) minute.unsent++
      else fire(mix.next())
      nextTick += interval
    }
    await new Promise((r) => setTimeout(r, Math.max(1, Math.min(5, nextTick - performance.now()))))
  }
  // What was sent is waited for (at most 30 s), then the last, partial minute is reported.
  const drainBy = performance.now() + 30_000
  while (inFlight > 0 && performance.now() < drainBy) await new Promise((r) => setTimeout(r, 20))
  closeMinute(minute.n + 1)
  await Promise.all(reports)
  const { state } = sockets
  const report: EndReport = {
    type: 'end',
    socketsOpen: state.open - state.closed,
    socketsClosed: state.closed,
    socketMessages: state.messages,
    socketForeign: state.foreign,
    inFlightAtEnd: inFlight,
    flows: mix.flows,
    errorSamples,
    byOperation: Object.fromEntries(byOperation(runByOp)),
  }
  sockets.close()
  await send(report)
  process.exit(0)
}

process.once('message', (cfg: LoadConfig) => {
  run(cfg).catch((err) => {
    console.error('soak load failed:', err)
    process.exit(1)
  })
})
