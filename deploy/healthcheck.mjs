// Container health check. `node deploy/healthcheck.mjs [port]`: GET /health on this container's
// port (default PORT, else 3000; a worker passes its WORKER_PORT). `--rpc [port]`: a JSON-RPC
// eth_blockNumber on the dev chain service (default DEVCHAIN_PORT, else 8545).
const args = process.argv.slice(2)
const rpc = args[0] === '--rpc'
const port =
  (rpc ? args[1] : args[0]) ?? (rpc ? process.env.DEVCHAIN_PORT : process.env.PORT) ?? (rpc ? '8545' : '3000')
const url = `http://127.0.0.1:${port}${rpc ? '/' : '/health'}`
const init = rpc
  ? {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    }
  : {}
try {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(4000) })
  const ok = res.ok && (!rpc || typeof (await res.json()).result === 'string')
  process.exit(ok ? 0 : 1)
} catch {
  process.exit(1)
}
