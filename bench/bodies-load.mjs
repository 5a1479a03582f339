// The load runner of requests that each send their own body (autocannon sends one body for all):
// `node bench/bodies-load.mjs <spec.json>`, where the spec names the URL, method, headers,
// connections and bodies. Each body is sent once, by `connections` requests in flight over
// keep-alive connections; prints the same figures as the autocannon runner, as JSON. A child
// process, so that the load's own CPU is not counted as the service's.
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const url = new URL(spec.url)
const agent = new Agent({ keepAlive: true, maxSockets: spec.connections })
const headers = { 'content-type': 'application/json', ...spec.headers }

function send(body) {
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: spec.method,
        headers: { ...headers, 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

const latencies = []
let next = 0
let non2xx = 0
let errors = 0
const started = performance.now()
await Promise.all(
  Array.from({ length: spec.connections }, async () => {
    while (next < spec.bodies.length) {
      const body = spec.bodies[next++]
      const t0 = performance.now()
      try {
        const status = await send(body)
        if (status < 200 || status > 299) non2xx++
      } catch {
        errors++
      }
      latencies.push(performance.now() - t0)
    }
  }),
)
const seconds = (performance.now() - started) / 1000
latencies.sort((a, b) => a - b)
const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0
agent.destroy()
process.stdout.write(
  JSON.stringify({
    requestsPerSec: Math.round(latencies.length / seconds),
    p50Ms: Number(at(50).toFixed(1)),
    p99Ms: Number(at(99).toFixed(1)),
    non2xx,
    errors,
    total: latencies.length,
  }),
)
