// The embedded database's files (PGlite under DATA_DIR/pg). A new data directory is unpacked from a
// cluster template, an initialised empty cluster (what initdb makes), instead of running initdb in
// the process: initdb in WASM takes seconds and leaves the process holding most of a gigabyte.
// The template is made once per machine and PGlite version, kept beside the installed packages
// (node_modules/.cache/workpay/), by `npm ci`/`npm install` (the `prepare` script) or, when it is
// absent, by the first start that needs it, in a worker thread whose memory is returned when it
// ends. The cluster is unpacked into a sibling directory and renamed into place, so a start cut
// short leaves either no database or a whole one.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import { gunzipSync } from 'node:zlib'

/**
 * Server settings of the service's embedded database. shared_buffers is PostgreSQL's page cache,
 * held in the process's WASM memory: 16 MB instead of the default 128 MB keeps a started service
 * about 130 MB smaller; pages beyond it are read through the operating system's file cache.
 */
export const embeddedSettings: Readonly<Record<string, string>> = { shared_buffers: '16MB' }

const require = createRequire(import.meta.url)

function pglitePackage(): { dir: string; version: string } {
  // resolves to <package>/dist/index.cjs
  const dir = resolve(dirname(require.resolve('@electric-sql/pglite')), '..')
  const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }
  return { dir, version }
}

/** Where the cluster template of the installed PGlite version is kept (gzipped tar). */
export function templateFile(): string {
  const { dir, version } = pglitePackage()
  const modules = resolve(dir, '..', '..')
  const cache =
    basename(modules) === 'node_modules'
      ? join(modules, '.cache', 'workpay')
      : join(tmpdir(), 'workpay-cache')
  return join(cache, `pglite-${version}-cluster.tar.gz`)
}

// initdb in a worker thread (plain JavaScript, so that it runs the same from src/ through tsx,
// from dist/ and under the test runner): an in-memory cluster, dumped as a gzipped tar.
const initdbWorker = `
const { parentPort, workerData } = require('node:worker_threads')
const { PGlite } = require(workerData.pglite)
;(async () => {
  const pg = await PGlite.create()
  const dump = await pg.dumpDataDir('gzip')
  await pg.close()
  const bytes = new Uint8Array(await dump.arrayBuffer())
  parentPort.postMessage(bytes, [bytes.buffer])
})()
`

function initdbInWorker(): Promise<Uint8Array> {
  return new Promise((resolvePromise, reject) => {
    const worker = new Worker(initdbWorker, {
      eval: true,
      execArgv: [],
      workerData: { pglite: require.resolve('@electric-sql/pglite') },
    })
    let result: Uint8Array | undefined
    worker.once('message', (bytes: Uint8Array) => {
      result = bytes
    })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (result) resolvePromise(result)
      else reject(new Error(`initdb in a worker thread exited with ${code} and no cluster`))
    })
  })
}

/** Writes `bytes` to `file` whole or not at all (a temporary file renamed into place). */
function writeWhole(file: string, bytes: Uint8Array) {
  mkdirSync(dirname(file), { recursive: true })
  const partial = `${file}.${process.pid}.${Date.now()}.partial`
  try {
    writeFileSync(partial, bytes)
    renameSync(partial, file)
  } catch (err) {
    rmSync(partial, { force: true })
    throw err
  }
}

/** The cluster template as a tar: the kept one, or a new one made (and kept when possible). */
export async function clusterTemplate(file = templateFile()): Promise<{ tar: Uint8Array; made: boolean }> {
  if (existsSync(file)) {
    try {
      return { tar: gunzipSync(readFileSync(file)), made: false }
    } catch {
      // damaged: made again below
    }
  }
  const gzipped = await initdbInWorker()
  try {
    writeWhole(file, gzipped)
  } catch {
    // a read-only installation: this start goes on without keeping it
  }
  return { tar: gunzipSync(gzipped), made: true }
}

/** Makes the cluster template unless it is there already; answers its file and whether it was made. */
export async function prepareClusterTemplate(
  file = templateFile(),
): Promise<{ file: string; made: boolean }> {
  if (existsSync(file)) {
    try {
      gunzipSync(readFileSync(file))
      return { file, made: false }
    } catch {}
  }
  writeWhole(file, await initdbInWorker())
  return { file, made: true }
}

/**
 * Unpacks a tar of regular files and directories (what PGlite's `dumpDataDir` writes) under `dir`.
 * Anything else in it (links, devices, names leaving `dir`) is refused.
 */
export function extractTar(tar: Uint8Array, dir: string) {
  const root = resolve(dir)
  const text = (from: number, length: number) => {
    const bytes = tar.subarray(from, from + length)
    const end = bytes.indexOf(0)
    return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString('utf8')
  }
  let at = 0
  while (at + 512 <= tar.length) {
    const name = text(at, 100)
    if (name === '') break // the two empty blocks that end the archive
    const prefix = text(at + 257, 6).startsWith('ustar') ? text(at + 345, 155) : ''
    const path = resolve(root, `./${prefix ? `${prefix}/` : ''}${name}`)
    if (path !== root && !path.startsWith(`${root}/`))
      throw new Error(`tar entry outside the directory: ${name}`)
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8)
    const mode = Number.parseInt(text(at + 100, 8).trim() || '0', 8) & 0o777
    const type = String.fromCharCode(tar[at + 156] ?? 0)
    const data = at + 512
    if (type === '5') mkdirSync(path, { recursive: true, mode: mode || 0o700 })
    else if (type === '0' || type === '\0') {
      if (data + size > tar.length) throw new Error(`tar entry cut short: ${name}`)
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      writeFileSync(path, tar.subarray(data, data + size), { mode: mode || 0o600 })
    } else throw new Error(`unexpected tar entry type ${JSON.stringify(type)}: ${name}`)
    at = data + Math.ceil(size / 512) * 512
  }
}

/**
 * Makes `dataDir` a cluster unpacked from the template when it is absent or empty. A directory that
 * holds anything else is left as it is (PGlite opens it, or initialises it as it always did).
 * Answers whether it unpacked a cluster and whether the template had to be made first.
 */
export async function ensureCluster(
  dataDir: string,
  template = templateFile(),
): Promise<{ unpacked: boolean; templateMade: boolean }> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return { unpacked: false, templateMade: false }
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return { unpacked: false, templateMade: false }
  const { tar, made } = await clusterTemplate(template)
  const target = resolve(dataDir)
  mkdirSync(dirname(target), { recursive: true })
  const partial = `${target}.${process.pid}.${Date.now()}.partial`
  try {
    extractTar(tar, partial)
    if (existsSync(target)) rmdirSync(target) // empty (checked above); fails otherwise
    renameSync(partial, target)
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    throw err
  }
  return { unpacked: true, templateMade: made }
}
