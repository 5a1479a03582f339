// A real webhook receiver for the tests: a node:http server on a loopback port that records every
// request (headers and raw body), answers with the statuses it is told to (200 once they run
// out), and, like a careful integrator, processes each `webhook-id` once. `verifyAsReceiver` checks
// a request with the `standardwebhooks` npm package, as an integrator's server would.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  status: number
  /** the receiver's clock when it arrived */
  receivedAt: number
}

export interface Receiver {
  url(path?: string): string
  /** every request, in arrival order */
  received: Received[]
  /** the webhook-ids processed once each (a repeated id is acknowledged and ignored) */
  processed: string[]
  /** statuses to answer next, in order (0: never answer); then 200 */
  answers: number[]
  close(): Promise<void>
}

/** `now`: the receiver's clock (the tests pass their app's, which runs ahead of the system's). */
export async function startReceiver(now: () => number = Date.now): Promise<Receiver> {
  const received: Received[] = []
  const processed: string[] = []
  const answers: number[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const status = answers.shift() ?? 200
      const body = Buffer.concat(chunks).toString('utf8')
      received.push({ path: req.url ?? '', headers: req.headers, body, status, receivedAt: now() })
      if (status === 0) return
      const id = String(req.headers['webhook-id'] ?? '')
      if (status >= 200 && status < 300 && !processed.includes(id)) processed.push(id)
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status >= 300 ? `failure ${status} ${'x'.repeat(2000)}` : 'ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: (path = '/hook') => `http://localhost:${port}${path}`,
    received,
    processed,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Verifies a received request with the `standardwebhooks` package, as a receiver would, its clock
 * reading `nowMs` (the tests' clock runs ahead of the system's); returns the parsed payload and
 * throws the package's WebhookVerificationError when the signature or timestamp does not verify.
 */
export function verifyAsReceiver(secret: string, req: Pick<Received, 'headers' | 'body'>, nowMs: number) {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v
  const systemNow = Date.now
  Date.now = () => nowMs
  try {
    return new Webhook(secret).verify(req.body, headers) as Record<string, unknown>
  } finally {
    Date.now = systemNow
  }
}
