// `npm run bench` loads the service's TypeScript the way it ships: compiled by esbuild as
// `npm start` and `npm run build` do (scripts/compile-sources.mjs), and unlike tsx, without
// `keepNames` (a call per closure created that renames it, which tsx adds to every function of
// ours on every request). Registered with `node --import ./bench/typescript.mjs`.
import { readFile } from 'node:fs/promises'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'
import { isMainThread } from 'node:worker_threads'

if (isMainThread) register(import.meta.url)

let esbuild

/** The load hook: `.ts` files of this checkout, compiled one by one. */
export async function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/'))
    return nextLoad(url, context)
  esbuild ??= await import('esbuild')
  const path = fileURLToPath(url)
  const { code } = await esbuild.transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcefile: path,
    sourcemap: 'inline',
  })
  return { format: 'module', source: code, shortCircuit: true }
}
