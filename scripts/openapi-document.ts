// Writes the OpenAPI document the service serves at /openapi.json to a file, from an app built on
// embedded defaults (an in-memory database, a throw-away DATA_DIR, the in-process dev chain), so
// the result depends on the code only, never on this machine's environment.
// Run: node --import tsx scripts/openapi-document.ts [out-file]   (default: openapi.json)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { openPGlite } from '../src/db/index.ts'
import { migrateToLatest } from '../src/db/migrate.ts'

/** The document of the current code, as JSON text. */
export async function openApiDocument(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wp-openapi-'))
  try {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', RUN_WORKERS: 'false' })
    const database = await openPGlite()
    try {
      await migrateToLatest(database.db)
      const app = await buildApp({ config, database, logger: false })
      try {
        await app.ready()
        return `${JSON.stringify(app.swagger(), null, 2)}\n`
      } finally {
        await app.close()
      }
    } finally {
      await database.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = resolve(process.argv[2] ?? 'openapi.json')
  writeFileSync(out, await openApiDocument())
  console.log(`wrote ${out}`)
}
