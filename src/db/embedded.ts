// The embedded database's files (PGlite under DATA_DIR/pg). A new data directory is unpacked from a
// cluster template, an initialised empty cluster (what initdb makes), instead of running initdb in
// the process: initdb in WASM takes seconds and leaves the process holding most of a gigabyte.
// The template is made once per machine and PGlite version, kept beside the installed packages
// (node_modules/.cache/workpay/), by `npm ci`/`npm install` (the `prepare` script) or, when it is
// absent, by the first start that needs it, in a worker thread whose memory is returned when it
// ends. The cluster is unpacked into a sibling directory and renamed into place, so a start cut
// short leaves either no database or a whole one.
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { Worker } from 'node:worker_threads'
import { createGunzip } from 'node:zlib'

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
export function writeWhole(file: string, bytes: Uint8Array) {
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

/**
 * The size of the pieces a template is read and unpacked in. Node's defaults (64 KB read, 16 KB
 * out of gunzip) cut a 44 MB cluster into about 2,800 pieces, each a trip through the thread pool
 * and the event loop: unpacking took 0.8 to 2 s on the bench machine where `gzip -d` takes 0.2 s.
 * In 1 MB pieces, about 50 of them, it takes about 0.2 s, for 1 MB or two held at a time.
 */
const PIECE = 1 << 20

/** Streams the gzipped template, the kept one; `undefined` when there is none. */
function keptTemplate(file: string): Readable | undefined {
  return existsSync(file) ? createReadStream(file, { highWaterMark: PIECE }) : undefined
}

/** Makes a template in a worker thread and keeps it (when the installation can be written to). */
async function newTemplate(file: string): Promise<Uint8Array> {
  const gzipped = await initdbInWorker()
  try {
    writeWhole(file, gzipped)
  } catch {
    // a read-only installation: this start goes on without keeping it
  }
  return gzipped
}

/** Whether a kept template is there and whole: read through, so that its gzip checksum is checked. */
export async function wholeTemplate(file: string): Promise<boolean> {
  const kept = keptTemplate(file)
  if (!kept) return false
  try {
    await pipeline(
      kept,
      createGunzip({ chunkSize: PIECE }),
      new Writable({ write: (_chunk, _enc, done) => done() }),
    )
    return true
  } catch {
    return false
  }
}

/** Makes the cluster template unless a whole one is there; answers its file and whether it was made. */
export async function prepareClusterTemplate(
  file = templateFile(),
): Promise<{ file: string; made: boolean }> {
  if (await wholeTemplate(file)) return { file, made: false }
  await newTemplate(file)
  return { file, made: true }
}

/**
 * Unpacks a gzipped tar of regular files and directories (what PGlite's `dumpDataDir` writes)
 * under `dir` as it streams in, never holding the archive (40 MB unpacked) in memory. Anything
 * else in it (links, devices, names leaving `dir`) is refused, as is an archive cut short.
 */
export async function extractTarGz(source: Readable, dir: string): Promise<void> {
  const root = resolve(dir)
  mkdirSync(root, { recursive: true, mode: 0o700 })
  const header = Buffer.alloc(512)
  let headerFill = 0
  /** the file being written, the bytes of it still to come, the padding after it */
  let fd: number | undefined
  let remaining = 0
  let padding = 0
  let ended = false

  const text = (from: number, length: number) => {
    const bytes = header.subarray(from, from + length)
    const end = bytes.indexOf(0)
    return (end < 0 ? bytes : bytes.subarray(0, end)).toString('utf8')
  }
  const entry = () => {
    const name = text(0, 100)
    if (name === '') {
      ended = true // the empty blocks that end the archive
      return
    }
    const prefix = text(257, 6).startsWith('ustar') ? text(345, 155) : ''
    const path = resolve(root, `./${prefix ? `${prefix}/` : ''}${name}`)
    if (path !== root && !path.startsWith(`${root}/`))
      throw new Error(`tar entry outside the directory: ${name}`)
    const size = Number.parseInt(text(124, 12).trim() || '0', 8)
    const mode = Number.parseInt(text(100, 8).trim() || '0', 8) & 0o777
    const type = String.fromCharCode(header[156] ?? 0)
    if (type === '5') mkdirSync(path, { recursive: true, mode: mode || 0o700 })
    else if (type === '0' || type === '\0') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      fd = openSync(path, 'w', mode || 0o600)
      remaining = size
      padding = (512 - (size % 512)) % 512
      if (remaining === 0) fd = closeFile(fd)
    } else throw new Error(`unexpected tar entry type ${JSON.stringify(type)}: ${name}`)
  }
  const closeFile = (open: number) => {
    closeSync(open)
    return undefined
  }

  try {
    for await (const chunk of source.pipe(createGunzip({ chunkSize: PIECE })) as AsyncIterable<Buffer>) {
      let at = 0
      while (at < chunk.length && !ended) {
        if (fd !== undefined) {
          const n = Math.min(remaining, chunk.length - at)
          writeSync(fd, chunk, at, n)
          at += n
          remaining -= n
          if (remaining === 0) fd = closeFile(fd)
        } else if (padding > 0) {
          const n = Math.min(padding, chunk.length - at)
          at += n
          padding -= n
        } else {
          const n = Math.min(512 - headerFill, chunk.length - at)
          chunk.copy(header, headerFill, at, at + n)
          at += n
          headerFill += n
          if (headerFill === 512) {
            headerFill = 0
            entry()
          }
        }
      }
    }
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  if (!ended || fd !== undefined) throw new Error('tar archive cut short')
}

/** Unpacks the kept template `file` into `partial`; false (nothing left there) when none is whole. */
async function unpacked(file: string | undefined, partial: string): Promise<boolean> {
  const kept = file === undefined ? undefined : keptTemplate(file)
  if (!kept) return false
  try {
    await extractTarGz(kept, partial)
    return true
  } catch {
    rmSync(partial, { recursive: true, force: true })
    return false
  }
}

/**
 * Unpacks into `partial` the migrated template when one is named and whole, else the cluster
 * template: the kept one, or one made now (also when the kept one is damaged). A missing or damaged
 * migrated template is only passed over: the start applies the migrations itself.
 */
async function unpackTemplate(
  file: string,
  partial: string,
  migrated?: string,
): Promise<{ made: boolean; migrated: boolean }> {
  if (await unpacked(migrated, partial)) return { made: false, migrated: true }
  if (await unpacked(file, partial)) return { made: false, migrated: false }
  await extractTarGz(Readable.from([await newTemplate(file)]), partial)
  return { made: true, migrated: false }
}

/**
 * Makes `dataDir` a cluster unpacked from a template when it is absent or empty: the migrated one
 * (the file `migrated` names, src/db/migrated-template.ts; asked only for a new directory) when it
 * is there, else the cluster template. A directory that holds anything else is left as it is
 * (PGlite opens it, or initialises it as it always did). Answers whether it unpacked a cluster,
 * whether the cluster template had to be made first, and whether the cluster came with the
 * migrations applied.
 */
export async function ensureCluster(
  dataDir: string,
  template = templateFile(),
  migrated?: () => string,
): Promise<{ unpacked: boolean; templateMade: boolean; migrated: boolean }> {
  const untouched = { unpacked: false, templateMade: false, migrated: false }
  if (existsSync(join(dataDir, 'PG_VERSION'))) return untouched
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return untouched
  const target = resolve(dataDir)
  mkdirSync(dirname(target), { recursive: true })
  const partial = `${target}.${process.pid}.${Date.now()}.partial`
  try {
    const from = await unpackTemplate(template, partial, migrated?.())
    if (existsSync(target)) rmdirSync(target) // empty (checked above); fails otherwise
    renameSync(partial, target)
    return { unpacked: true, templateMade: from.made, migrated: from.migrated }
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    throw err
  }
}
