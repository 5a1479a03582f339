// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json rewrites the `.ts` import
// specifiers to `.js`) and copies the files that are read at run time rather than imported (JSON
// assets such as the dev token's compiled contract). dist/ is emptied first, so a migration that
// was removed from src/ never survives in a build.
import { execFileSync } from 'node:child_process'
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const src = join(root, 'src')
const out = join(root, 'dist')

rmSync(out, { recursive: true, force: true })
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
} catch {
  console.error('build failed: tsc reported errors')
  process.exit(1)
}

let copied = 0
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) copyAssets(path)
    else if (!/\.ts$/.test(name)) {
      cpSync(path, join(out, relative(src, path)))
      copied++
    }
  }
}
copyAssets(src)
console.log(`built dist/ (${copied} asset file(s) copied)`)
