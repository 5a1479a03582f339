// Lints the OpenAPI document of the current code with Redocly's recommended rules (redocly.yaml).
// Run: npm run lint:openapi
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openApiDocument } from './openapi-document.ts'

const dir = mkdtempSync(join(tmpdir(), 'wp-openapi-lint-'))
const file = join(dir, 'openapi.json')
try {
  writeFileSync(file, await openApiDocument())
  const lint = spawnSync('redocly', ['lint', file, '--config', 'redocly.yaml'], { stdio: 'inherit' })
  process.exitCode = lint.status ?? 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
