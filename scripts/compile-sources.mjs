// src/ compiled for `npm start` (scripts/start.mjs): one JavaScript bundle per state of the sources,
// kept in node_modules/.cache/workpay/start/<checkout>/<hash of the sources>/.
//
// Loading a few bundled files instead of a thousand modules (ours through tsx's hooks, and every
// package's own files) is most of what makes the start fast and small: the service's code and the
// packages that bundle cleanly (pure JavaScript that reads none of its own files) become
// `main.js` plus chunks for what is loaded later (`import()`), with esbuild. Left as ordinary
// imports from node_modules: packages with native parts, WebAssembly or files of their own
// (PGlite, the dev chain, argon2, pino's transports, the API docs' pages), and those loaded only
// when configured (S3, SMTP, Redis).
//
// The layout is dist/'s (`npm run build`): each source module's `import.meta.url` names the place
// its file has there, the migrations are files of their own in db/migrations/, and every file of
// src/ that is not TypeScript (JSON, the operator console's pages) is copied to its place. A start
// with unchanged sources only hashes them; another state is compiled into a new directory (a few
// seconds), renamed into place when whole, and the oldest states beyond the last few are removed.
import { createHash } from 'node:crypto'
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** Packages imported from node_modules as they are, not bundled (see above). */
export const EXTERNAL = [
  '@electric-sql/pglite',
  'hardhat',
  'hardhat/*',
  '@nomicfoundation/*',
  '@node-rs/argon2',
  'pino',
  'pino-pretty',
  'thread-stream',
  '@fastify/swagger',
  '@scalar/fastify-api-reference',
  '@aws-sdk/*',
  'nodemailer',
  'ioredis',
  'file-type',
  'solc',
  // optional native add-ons that ws and pg try to load
  'bufferutil',
  'utf-8-validate',
  'pg-native',
]

/** compiled states kept per checkout */
export const KEEP = 4

/** Every file under `src` the service needs (tests excluded), relative, in a stable order. */
function sourceFiles(src) {
  return readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => !f.endsWith('.test.ts') && statSync(join(src, f)).isFile())
    .sort()
}

/**
 * esbuild escapes every character outside ASCII in the code it writes, but keeps the comments it
 * carries over as they are. One such character makes V8 hold the whole file's source (which it
 * keeps for the process's life) two bytes per character: 6 MB more for the main bundle. Each one
 * left in a comment becomes `?` (as many as its UTF-16 units, so the source map's columns hold).
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8')
  const ascii = text.replace(/[\u0080-\u{10ffff}]/gu, (c) => '?'.repeat(c.length))
  if (ascii !== text) writeFileSync(file, ascii)
}

/** Compiles into `outdir` the modules whose place will be `out` (where `outdir` is renamed to). */
async function compile({ src, files, outdir, out, esbuild }) {
  const migrations = files.filter((f) => /^db\/migrations\/\d{4}-[\w-]+\.ts$/.test(f))
  await esbuild.build({
    entryPoints: [
      { in: join(src, 'main.ts'), out: 'main' },
      // for npm ci's prepare script, which makes the embedded database's migrated template
      ...files
        .filter((f) => f === 'db/migrated-template.ts')
        .map((f) => ({ in: join(src, f), out: f.replace(/\.ts$/, '') })),
      ...migrations.map((f) => ({ in: join(src, f), out: f.replace(/\.ts$/, '') })),
    ],
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    // CommonJS packages in the bundle call `require` (for Node.js built-ins and the packages left
    // external): an ES module has none of its own.
    banner: {
      js: "import { createRequire as __workpayRequire } from 'node:module'; const require = __workpayRequire(import.meta.url);",
    },
    plugins: [
      {
        name: 'source-locations',
        setup(build) {
          // each module of src/ keeps the `import.meta.url` of its place in the layout
          build.onLoad({ filter: /\.ts$/ }, (args) => {
            const rel = relative(src, args.path)
            if (rel.startsWith('..')) return undefined
            let contents = readFileSync(args.path, 'utf8')
            if (contents.includes('import.meta.url')) {
              const url = pathToFileURL(join(out, rel.replace(/\.ts$/, '.js'))).href
              contents = contents.replaceAll('import.meta.url', JSON.stringify(url))
            }
            return { contents, loader: 'ts' }
          })
        },
      },
    ],
  })
  for (const f of readdirSync(outdir, { recursive: true })) if (f.endsWith('.js')) asciiOnly(join(outdir, f))
  for (const f of files.filter((f) => !f.endsWith('.ts'))) cpSync(join(src, f), join(outdir, f))
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n')
}

/**
 * The directory of the compiled sources of `root` (its `main.js` is src/main.ts), compiled first
 * unless this state of the sources already was.
 */
export async function compiledSources({
  root,
  esbuild,
  cache = join(root, 'node_modules', '.cache', 'workpay'),
}) {
  const src = join(root, 'src')
  const files = sourceFiles(src)
  const hash = createHash('sha256')
  hash.update(`${esbuild.version}\0${readFileSync(fileURLToPath(import.meta.url))}\0`)
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(src, f)))
      .update('\0')
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12)
  const states = join(cache, 'start', checkout)
  const out = join(states, hash.digest('hex').slice(0, 16))
  if (existsSync(join(out, 'main.js'))) {
    // marks it as used now, so that removing old states keeps it
    utimesSync(out, new Date(), new Date())
    return { out, compiled: false }
  }

  const partial = `${out}.${process.pid}.partial`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(states, { recursive: true })
  try {
    await compile({ src, files, outdir: partial, out, esbuild })
    renameSync(partial, out)
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    // another start compiled the same sources at the same time
    if (existsSync(join(out, 'main.js'))) return { out, compiled: false }
    throw err
  }
  const older = readdirSync(states)
    .filter((d) => !d.endsWith('.partial'))
    .map((d) => ({ dir: join(states, d), at: statSync(join(states, d)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .slice(KEEP)
  for (const { dir } of older) rmSync(dir, { recursive: true, force: true })
  return { out, compiled: true }
}

/**
 * Imports the module of `root`'s src/ at `path` (`main`, `db/migrated-template`: an entry point of
 * the bundle, without extension) as `npm start` runs the sources: compiled when esbuild is
 * installed, else through tsx's hooks.
 */
export async function importSource(root, path) {
  let esbuild
  try {
    esbuild = await import('esbuild')
  } catch {}
  if (esbuild) {
    const { out } = await compiledSources({ root, esbuild })
    await esbuild.stop?.()
    return import(pathToFileURL(join(out, `${path}.js`)).href)
  }
  const { register } = await import('tsx/esm/api')
  register()
  return import(pathToFileURL(join(root, 'src', `${path}.ts`)).href)
}
