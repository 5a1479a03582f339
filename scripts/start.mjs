// `npm start` (and `npm run migrate`): src/main.ts under plain Node.js, from JavaScript compiled
// once per state of the sources. Running through tsx's module hooks costs every import (ours and
// every package's) a trip through them: about twice the import time and 100 MB more memory than
// the same code compiled. So src/ is compiled here with esbuild (types stripped, one .js file per
// .ts file, `.ts` import specifiers rewritten to `.js`, the files read at run time copied beside
// them, as `npm run build` lays out dist/) into
// node_modules/.cache/workpay/start/<checkout>/<hash of the sources>/, in a few hundred
// milliseconds; a start with unchanged sources only hashes them. Arguments are passed on
// (`node scripts/start.mjs api`). Stack traces name the compiled files; NODE_OPTIONS=--enable-source-maps
// maps them back to src/. Without esbuild installed, the sources run through tsx as before.
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
  writeFileSync,
} from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'src')
/** compiled states kept per checkout (older ones are removed) */
const KEEP = 4

/** Every file under src/ that the service needs (tests excluded), relative, in a stable order. */
function sourceFiles() {
  return readdirSync(src, { recursive: true })
    .map(String)
    .filter((f) => !f.endsWith('.test.ts') && statSync(join(src, f)).isFile())
    .sort()
}

async function compile(files, out, esbuild) {
  const entryPoints = files.filter((f) => f.endsWith('.ts')).map((f) => join(src, f))
  await esbuild.build({
    entryPoints,
    outdir: out,
    outbase: src,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'error',
    // Each file stays a module of its own: packages and our own modules are left as imports,
    // with the latter's `.ts` written `.js`.
    bundle: true,
    packages: 'external',
    plugins: [
      {
        name: 'relative-imports',
        setup(build) {
          build.onResolve({ filter: /^\.\.?\// }, (args) =>
            args.kind === 'entry-point'
              ? undefined
              : { path: args.path.replace(/\.ts$/, '.js'), external: true },
          )
        },
      },
    ],
  })
  for (const f of files.filter((f) => !f.endsWith('.ts'))) cpSync(join(src, f), join(out, f))
  writeFileSync(join(out, 'package.json'), '{ "type": "module" }\n')
}

async function compiled(esbuild) {
  const files = sourceFiles()
  const hash = createHash('sha256')
  hash.update(`${esbuild.version}\0${readFileSync(fileURLToPath(import.meta.url))}\0`)
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(src, f)))
      .update('\0')
  const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12)
  const states = join(root, 'node_modules', '.cache', 'workpay', 'start', checkout)
  const out = join(states, hash.digest('hex').slice(0, 16))
  if (existsSync(join(out, 'main.js'))) return out

  const partial = `${out}.${process.pid}.partial`
  rmSync(partial, { recursive: true, force: true })
  try {
    await compile(files, partial, esbuild)
    mkdirSync(states, { recursive: true })
    renameSync(partial, out)
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    // another start compiled the same sources at the same time
    if (existsSync(join(out, 'main.js'))) return out
    throw err
  }
  const older = readdirSync(states)
    .filter((d) => !d.endsWith('.partial'))
    .map((d) => ({ dir: join(states, d), at: statSync(join(states, d)).mtimeMs }))
    .sort((a, b) => b.at - a.at)
    .slice(KEEP)
  for (const { dir } of older) rmSync(dir, { recursive: true, force: true })
  return out
}

let esbuild
try {
  esbuild = await import('esbuild')
} catch {}
if (esbuild) {
  const out = await compiled(esbuild)
  if (process.env.WORKPAY_START_DEBUG) console.error(`compiled sources: ${relative(root, out)}`)
  await import(pathToFileURL(join(out, 'main.js')).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(join(src, 'main.ts')).href)
}
