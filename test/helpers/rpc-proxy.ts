// A fault-injecting JSON-RPC proxy for tests and benchmarks: it stands on 127.0.0.1 (any free
// port) in front of a real node (the devnet's loopback JSON-RPC server) and, per method, answers
// what a misbehaving provider would: HTTP 500 or 429, JSON-RPC error objects, hangs, lies about
// the answer, swallowed broadcasts; at a rate drawn from a seeded generator, so a run can be
// repeated. Every call is counted per method. Rules change while the proxy runs.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Hex, keccak256 } from 'viem'

/** What a matching call gets instead of (or on top of) the node's answer. */
export type Fault =
  /** the whole HTTP request answers with this status (a batch as a whole, like a real gateway) */
  | { kind: 'http'; status: number }
  /** a JSON-RPC error object for this call */
  | { kind: 'rpc-error'; code: number; message: string }
  /** waits `ms` (or, without `ms`, until `release()`), then forwards as usual */
  | { kind: 'hang'; ms?: number }
  /** forwards, then answers `answer(result, params)` in place of the node's result */
  | { kind: 'lie'; answer: (result: unknown, params: unknown[]) => unknown }
  /** `eth_sendRawTransaction`: answers the transaction's hash and never forwards it */
  | { kind: 'swallow' }

export const faults = {
  http500: { kind: 'http', status: 500 } as Fault,
  http429: { kind: 'http', status: 429 } as Fault,
  rpcError: (code = -32603, message = 'internal error'): Fault => ({ kind: 'rpc-error', code, message }),
  hang: (ms?: number): Fault => (ms === undefined ? { kind: 'hang' } : { kind: 'hang', ms }),
  lie: (answer: (result: unknown, params: unknown[]) => unknown): Fault => ({ kind: 'lie', answer }),
  swallow: { kind: 'swallow' } as Fault,
}

export interface FaultRule {
  /** method name(s) this rule applies to; `*` for every method */
  method: string | string[]
  /** one fault, or several: each hit picks one of them with the seeded generator */
  fault: Fault | Fault[]
  /** share of matching calls hit (0..1, seeded generator); default every one */
  rate?: number
  /** hits left; the rule is removed after the last (default: no limit) */
  times?: number
  /** narrows the rule to calls whose params match */
  when?: (params: unknown[]) => boolean
}

export interface RpcProxy {
  url: string
  /** adds a rule (checked after the rules added before it); returns a function removing it */
  add(rule: FaultRule): () => void
  /** removes every rule (calls in a hang are not released: see `release`) */
  clear(): void
  /** lets every call waiting in an open-ended hang go on */
  release(): void
  /** calls received per method, faulted or not (batch members counted one by one) */
  calls(method?: string): number
  /** faults injected per method */
  faulted(method?: string): number
  /** hashes of the transactions swallowed so far */
  readonly swallowed: readonly Hex[]
  close(): Promise<void>
}

interface Call {
  jsonrpc?: string
  id?: unknown
  method?: unknown
  params?: unknown
}

/** mulberry32: small, fast and good enough to pick faults repeatably */
function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)
const total = (counts: Map<string, number>, method?: string) =>
  method === undefined ? [...counts.values()].reduce((a, b) => a + b, 0) : (counts.get(method) ?? 0)

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startRpcProxy(upstream: string, opts: { seed?: number } = {}): Promise<RpcProxy> {
  const random = seeded(opts.seed ?? 1)
  let rules: FaultRule[] = []
  const received = new Map<string, number>()
  const injected = new Map<string, number>()
  const swallowed: Hex[] = []
  let waiting: (() => void)[] = []

  /** the fault a call gets, if any; a rule's hit count and the counters move here */
  function pick(method: string, params: unknown[]): Fault | undefined {
    for (const rule of rules) {
      const methods = Array.isArray(rule.method) ? rule.method : [rule.method]
      if (!methods.includes(method) && !methods.includes('*')) continue
      if (rule.when && !rule.when(params)) continue
      if (rule.rate !== undefined && random() >= rule.rate) continue
      if (rule.times !== undefined && --rule.times <= 0) rules = rules.filter((r) => r !== rule)
      bump(injected, method)
      const all = Array.isArray(rule.fault) ? rule.fault : [rule.fault]
      return all[Math.floor(random() * all.length)]
    }
    return undefined
  }

  async function forward(call: Call): Promise<Record<string, unknown>> {
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(call),
    })
    return (await res.json()) as Record<string, unknown>
  }

  async function answer(call: Call, fault: Fault | undefined): Promise<Record<string, unknown>> {
    const id = call.id ?? null
    const params = Array.isArray(call.params) ? call.params : []
    if (fault?.kind === 'rpc-error')
      return { jsonrpc: '2.0', id, error: { code: fault.code, message: fault.message } }
    if (fault?.kind === 'swallow') {
      const hash = keccak256(params[0] as Hex)
      swallowed.push(hash)
      return { jsonrpc: '2.0', id, result: hash }
    }
    if (fault?.kind === 'hang')
      await new Promise<void>((resolve) => {
        if (fault.ms === undefined) waiting.push(resolve)
        else setTimeout(resolve, fault.ms)
      })
    const out = await forward(call)
    if (fault?.kind === 'lie' && 'result' in out) return { ...out, result: fault.answer(out.result, params) }
    return out
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    let body: unknown
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      res.writeHead(400).end()
      return
    }
    const batch = Array.isArray(body) ? (body as Call[]) : [body as Call]
    const picked = batch.map((call) => {
      const method = typeof call?.method === 'string' ? call.method : '?'
      bump(received, method)
      return pick(method, Array.isArray(call?.params) ? call.params : [])
    })
    const http = picked.find((f) => f?.kind === 'http')
    if (http?.kind === 'http') {
      res.writeHead(http.status, { 'content-type': 'text/plain' }).end(`injected ${http.status}`)
      return
    }
    const answers = await Promise.all(batch.map((call, i) => answer(call, picked[i])))
    if (res.destroyed) return // the client gave up (a hang longer than its timeout)
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end()
      else res.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const release = () => {
    const all = waiting
    waiting = []
    for (const go of all) go()
  }
  return {
    url: `http://127.0.0.1:${port}`,
    add(rule) {
      const own = { ...rule }
      rules.push(own)
      return () => {
        rules = rules.filter((r) => r !== own)
      }
    },
    clear() {
      rules = []
    },
    release,
    calls: (method) => total(received, method),
    faulted: (method) => total(injected, method),
    swallowed,
    close: () =>
      new Promise<void>((resolve) => {
        release()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
