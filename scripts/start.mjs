// `npm start` (and `npm run migrate`): src/main.ts under plain Node.js, from the sources compiled
// into a bundle once per state of them (scripts/compile-sources.mjs). Arguments are passed on
// (`node scripts/start.mjs api`). Stack traces name the compiled files; with
// NODE_OPTIONS=--enable-source-maps they name src/ instead. Without esbuild installed, the sources
// run through tsx as before.
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

let esbuild
try {
  esbuild = await import('esbuild')
} catch {}
if (esbuild) {
  const { compiledSources } = await import('./compile-sources.mjs')
  const { out } = await compiledSources({ root, esbuild })
  await esbuild.stop?.()
  await import(pathToFileURL(join(out, 'main.js')).href)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(join(root, 'src', 'main.ts')).href)
}
