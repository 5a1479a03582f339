// The HTTP load generator of the bench's cases, one child process kept for the whole run (forked
// by bench/lib.ts), so that the load's own CPU is not counted as the service's and no case pays
// for starting Node and loading autocannon again. Each IPC message is one run; the answer carries
// the same figures for both kinds:
// - `autocannon`: one request (method, headers, body) repeated by `connections` for `seconds`,
//   sampled every 100 ms so that a half-second case runs half a second (autocannon's default
//   sample of a second rounds every run up to whole seconds);
// - `bodies`: each body sent once, by `connections` requests in flight over keep-alive
//   connections (autocannon sends one body for all).
import { Agent, request } from 'node:http'
import autocannon from 'autocannon'

async function cannon(spec) {
  const r = await autocannon({
    url: spec.url,
    method: spec.method,
    headers: spec.headers,
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    connections: spec.connections,
    duration: spec.seconds,
    sampleInt: 100,
  })
  return {
    requestsPerSec: Math.round(r.requests.total / r.duration),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    total: r.requests.total,
  }
}

async function bodies(spec) {
  const url = new URL(spec.url)
  const agent = new Agent({ keepAlive: true, maxSockets: spec.connections })
  const headers = { 'content-type': 'application/json', ...spec.headers }
  const send = (body) => {
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
  return {
    requestsPerSec: Math.round(latencies.length / seconds),
    p50Ms: Number(at(50).toFixed(1)),
    p99Ms: Number(at(99).toFixed(1)),
    non2xx,
    errors,
    total: latencies.length,
  }
}

process.on('message', async ({ id, kind, spec }) => {
  try {
    const result = kind === 'bodies' ? await bodies(spec) : await cannon(spec)
    process.send({ id, result })
  } catch (err) {
    process.send({ id, error: String(err?.stack ?? err) })
  }
})
