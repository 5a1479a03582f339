// `node bench/profile-top.mjs FILE.cpuprofile [N]`: where a V8 CPU profile (`--profile DIR`, or
// `node --cpu-prof`) spent its samples: the top N functions by self time, the same by package or
// source file, and the service's own frames (src/) by inclusive time, each as a share of the
// samples that were not idle. `writev` is shown apart: under load it is mostly the process waiting
// for the CPU after waking the reader of a loopback socket, not the write's own cost.
import { readFileSync } from 'node:fs'

const [file, topArg] = process.argv.slice(2)
if (!file) {
  console.error('usage: node bench/profile-top.mjs FILE.cpuprofile [N]')
  process.exit(2)
}
const top = Number(topArg ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8'))
const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
const parentOf = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
const selfUs = new Map()
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
}

const short = (url) => url.replace(/^.*node_modules\//, '').replace(/^.*?\/(src|bench|test)\//, '$1/')
const where = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`
const owner = (n) => {
  const url = n.callFrame.url
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg) return `package ${pkg}`
  if (/\/src\//.test(url)) return short(url)
  if (url.startsWith('node:')) return 'node internals'
  return n.callFrame.functionName || '(native)'
}
const apart = new Set(['(idle)', '(program)', '(garbage collector)', 'writev'])
let total = 0
const shown = new Map()
const bump = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us)
const byFunction = new Map()
const byOwner = new Map()
const inclusive = new Map()
for (const [id, us] of selfUs) {
  const n = nodes.get(id)
  const name = n.callFrame.functionName
  if (apart.has(name)) {
    bump(shown, name, us)
    if (name === '(idle)') continue
  }
  total += us
  if (apart.has(name)) continue
  bump(byFunction, where(n), us)
  bump(byOwner, owner(n), us)
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parentOf.get(cur)) {
    const m = nodes.get(cur)
    if (!/\/src\//.test(m.callFrame.url)) continue
    const key = where(m)
    if (seen.has(key)) continue
    seen.add(key)
    bump(inclusive, key, us)
  }
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)} %`
const list = (title, map) => {
  console.log(`\n${title}`)
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`)
}
console.log(`${file}: ${(total / 1e6).toFixed(1)} s of samples not idle`)
for (const [k, us] of shown) console.log(`${k === '(idle)' ? '  (idle, not counted)' : pct(us)}  ${k}`)
list('self time by function', byFunction)
list('self time by package or source file', byOwner)
list('the service’s own frames (src/), inclusive', inclusive)
