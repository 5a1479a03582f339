// `node scripts/measure-start.mjs [--runs N] [--cmd "npm start"] [--dir checkout]`: how fast the
// service starts on its embedded defaults and how much memory it holds once started. Each run
// starts the command on a new, empty DATA_DIR (fresh) and then again on that same directory
// (warm), measuring:
//
// - the time from spawning the command to the first 200 from `GET /health` (polled every 20 ms);
// - the start-up steps the service logs with `started` (`startupMs`);
// - the resident memory (VmRSS) of the serving node process 2 s after that answer (RSS after
//   start), and its peak (VmHWM) over the start;
//
// then stops it with SIGTERM. Prints each run and the medians, with the load average of the
// machine before and after (the figures are only comparable at a similar load), and `--markdown`
// prints the lines bench/HISTORY.md keeps.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    cmd: { type: 'string', default: 'npm start' },
    settle: { type: 'string', default: '2000' },
    markdown: { type: 'boolean', default: false },
    // another checkout to run the command in (e.g. an older commit, for before/after figures)
    dir: { type: 'string' },
  },
})
const cwd = args.dir ?? root
const runs = Number(args.runs)
const settleMs = Number(args.settle)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** VmRSS and VmHWM of a process, in MB */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN)
  return { rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) }
}

/** The node process that serves: the command itself, or the node process it runs (npm → exec node). */
function servingPid(pid) {
  for (let i = 0; i < 4; i++) {
    const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
    let children = []
    try {
      children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
    } catch {}
    if (comm === 'node' && children.length === 0) return pid
    if (children.length === 0) return pid
    pid = Number(children.at(-1))
  }
  return pid
}

async function startOnce(dataDir) {
  const port = await freePort()
  const [cmd, ...cmdArgs] = args.cmd.split(/\s+/)
  const t0 = performance.now()
  const child = spawn(cmd, cmdArgs, {
    cwd,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => {
    output += d
  })
  child.stderr.on('data', (d) => {
    output += d
  })
  let exited = false
  const gone = new Promise((resolve) =>
    child.on('exit', (code) => {
      exited = true
      resolve(code)
    }),
  )
  let healthMs
  while (healthMs === undefined) {
    if (exited) throw new Error(`the service exited before answering /health:\n${output}`)
    if (performance.now() - t0 > 120_000) throw new Error(`no answer from /health in 120 s:\n${output}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`)
      if (res.status === 200) healthMs = performance.now() - t0
    } catch {}
    if (healthMs === undefined) await sleep(20)
  }
  await sleep(settleMs)
  const mem = memory(servingPid(child.pid))
  const started = output.split('\n').find((l) => l.includes('"msg":"started"'))
  const steps = started ? JSON.parse(started).startupMs : undefined
  child.kill('SIGTERM')
  const code = await gone
  if (code !== 0) throw new Error(`the service exited with ${code} on SIGTERM:\n${output}`)
  return { healthMs: Math.round(healthMs), ...mem, steps }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : Math.round((s[m - 1] + s[m]) / 2)
}
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

const loadBefore = load()
const results = { fresh: [], warm: [] }
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'wp-start-'))
  try {
    const fresh = await startOnce(dir)
    const warm = await startOnce(dir)
    results.fresh.push(fresh)
    results.warm.push(warm)
    console.log(
      `run ${i + 1}: fresh ${fresh.healthMs} ms, RSS ${fresh.rssMB} MB (peak ${fresh.peakMB}); ` +
        `warm ${warm.healthMs} ms, RSS ${warm.rssMB} MB (peak ${warm.peakMB})`,
    )
    console.log(`  steps (ms): fresh ${JSON.stringify(fresh.steps)}; warm ${JSON.stringify(warm.steps)}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
const loadAfter = load()
const summary = Object.fromEntries(
  Object.entries(results).map(([k, rs]) => [
    k,
    {
      healthMs: median(rs.map((r) => r.healthMs)),
      rssMB: median(rs.map((r) => r.rssMB)),
      peakMB: median(rs.map((r) => r.peakMB)),
      steps: rs[0]?.steps
        ? Object.fromEntries(
            Object.keys(rs[0].steps).map((s) => [s, median(rs.map((r) => r.steps?.[s] ?? 0))]),
          )
        : undefined,
    },
  ]),
)
console.log(
  JSON.stringify({
    cmd: args.cmd,
    runs,
    node: process.version,
    cores: cpus().length,
    loadBefore,
    loadAfter,
    ...summary,
  }),
)
if (args.markdown) {
  const { fresh, warm } = summary
  console.log(
    `- \`${args.cmd}\`, medians of ${runs} (load ${loadBefore} before, ${loadAfter} after): ` +
      `fresh ${fresh.healthMs} ms to /health, RSS ${fresh.rssMB} MB (peak ${fresh.peakMB}); ` +
      `warm ${warm.healthMs} ms, RSS ${warm.rssMB} MB (peak ${warm.peakMB})`,
  )
}
