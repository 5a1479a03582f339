// A loopback HTTP JSON-RPC endpoint for the devnet, so wallet apps, scripts and the rpc adapter
// can reach the in-process chain. Requests go through the same provider wrapper as the adapter,
// so outside transactions are journaled and a simulated outage applies to them too.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>
}

const MAX_BODY = 5 * 1024 * 1024

interface RpcRequest {
  jsonrpc?: string
  id?: unknown
  method?: unknown
  params?: unknown
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_BODY) {
        reject(new Error('body too large'))
        req.destroy()
      } else chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

function errorObject(err: unknown): { code: number; message: string; data?: unknown } {
  const e = err as { code?: unknown; message?: unknown; data?: unknown }
  const code = typeof e?.code === 'number' ? e.code : -32603
  const message = typeof e?.message === 'string' ? e.message : 'internal error'
  return e?.data === undefined ? { code, message } : { code, message, data: e.data }
}

async function handleOne(provider: Eip1193, msg: RpcRequest) {
  const id = msg?.id ?? null
  if (typeof msg?.method !== 'string')
    return { jsonrpc: '2.0', id, error: { code: -32600, message: 'invalid request' } }
  const params = Array.isArray(msg.params) ? msg.params : []
  try {
    const result = await provider.request({ method: msg.method, params })
    return { jsonrpc: '2.0', id, result: result === undefined ? null : result }
  } catch (err) {
    return { jsonrpc: '2.0', id, error: errorObject(err) }
  }
}

export interface DevnetRpcServer {
  url: string
  close(): Promise<void>
}

/**
 * Serves `provider` on 127.0.0.1:`port` (0 = any free port). `isDown()` true answers 503 to every
 * request, like an unreachable node behind a proxy.
 */
export async function startRpcServer(
  provider: Eip1193,
  port: number,
  isDown: () => boolean,
): Promise<DevnetRpcServer> {
  const server: Server = createServer(async (req, res) => {
    res.setHeader('access-control-allow-origin', '*')
    res.setHeader('access-control-allow-headers', 'content-type')
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS')
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end()
      return
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { 'content-type': 'text/plain' }).end('JSON-RPC over POST only')
      return
    }
    if (isDown()) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('devnet is down')
      return
    }
    let body: unknown
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }))
      return
    }
    const answer = Array.isArray(body)
      ? await Promise.all(body.map((m) => handleOne(provider, m as RpcRequest)))
      : await handleOne(provider, body as RpcRequest)
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify(answer, (_k, v) => (typeof v === 'bigint' ? `0x${v.toString(16)}` : v)))
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port: actual } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
