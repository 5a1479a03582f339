// A real webhook receiver for the tests: a node:http server on a loopback port that records every
// request (headers and raw body), answers with the statuses it is told to (200 once they run
// out), and, like a careful integrator, processes each `webhook-id` once.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
  status: number
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

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = []
  const processed: string[] = []
  const answers: number[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const status = answers.shift() ?? 200
      const body = Buffer.concat(chunks).toString('utf8')
      received.push({ path: req.url ?? '', headers: req.headers, body, status })
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
