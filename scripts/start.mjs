// `npm start` (and `npm run migrate`): src/main.ts under plain Node.js, from the sources compiled
// into a bundle once per state of them (scripts/compile-sources.mjs). Arguments are passed on
// (`node scripts/start.mjs api`). Stack traces name the compiled files; with
// NODE_OPTIONS=--enable-source-maps they name src/ instead. Without esbuild installed, the sources
// run through tsx as before.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { importSource } from './compile-sources.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

await importSource(root, 'main')
