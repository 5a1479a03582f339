// Keeps `npm ci` working with a registry that lacks some platforms' optional binaries.
//
// npm records no lock entry for an optional dependency it cannot resolve (here: Biome's and
// Hardhat EDR's builds for other operating systems), and `npm ci` then refuses the lock file as
// out of sync. This adds an entry for each such package, marked optional and limited to its own
// os/cpu/libc, so `npm ci` accepts the lock file and skips the package on this platform. Run it
// after every `npm install` that changes dependencies (`npm run lock` does both).
import { readFileSync, writeFileSync } from 'node:fs'

const file = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(file, 'utf8'))
const packages = lock.packages
let added = 0

function platformOf(name) {
  const parts = name.split('/').pop().split('-')
  const os = parts.find((p) =>
    ['android', 'darwin', 'linux', 'win32', 'freebsd', 'openbsd', 'sunos', 'aix'].includes(p),
  )
  const cpu = parts.find((p) =>
    ['arm64', 'x64', 'ia32', 'arm', 'riscv64', 'ppc64', 's390x', 'loong64'].includes(p),
  )
  const libc = parts.includes('musl') ? 'musl' : parts.includes('gnu') ? 'glibc' : undefined
  return { os, cpu, libc }
}

for (const [path, pkg] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = path ? `${path}/node_modules/` : 'node_modules/'
    if (packages[`${base}${dep}`] || packages[`node_modules/${dep}`]) continue
    const { os, cpu, libc } = platformOf(dep)
    if (!os || !cpu) continue // not a platform binary: leave it to npm
    packages[`node_modules/${dep}`] = {
      version: spec.replace(/^[\^~=]/, ''),
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      cpu: [cpu],
      ...(libc ? { libc: [libc] } : {}),
    }
    added++
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
)
lock.packages = sorted
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`lock file: ${added} platform-specific optional package(s) recorded`)
