// The root package's `prepare` script (`npm ci`, `npm install`): makes this machine's cluster
// template of the embedded database (src/db/embedded.ts), so that `npm start` on a new data
// directory unpacks it instead of running initdb, then its migrated template
// (src/db/migrated-template.ts), so that the start has no migration to apply either. The migrated
// template is made by the sources compiled as `npm start` runs them (scripts/compile-sources.mjs,
// which this compiles ahead of the first start): the migrations' digest is then the start's.
// Nothing is done on a production install (`--omit=dev` or NODE_ENV=production: production never
// runs the embedded database) nor where the sources are absent (the container image's dependency
// stages copy only the package files). A failure is reported without failing the install: a start
// makes the cluster template when it is missing, and migrates without the migrated one.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const source = new URL('../src/db/embedded.ts', import.meta.url)
const omitted = (process.env.npm_config_omit ?? '').split(/[\s,]+/)
if (omitted.includes('dev') || process.env.NODE_ENV === 'production') {
  console.log('prepare: production install, no embedded database template')
  process.exit(0)
}
if (!existsSync(source)) process.exit(0)

try {
  const { tsImport } = await import('tsx/esm/api')
  const { prepareClusterTemplate } = await tsImport(source.href, import.meta.url)
  const started = performance.now()
  const { file, made } = await prepareClusterTemplate()
  const took = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`prepare: embedded database template ${made ? `made in ${took} s` : 'already there'}: ${file}`)
} catch (err) {
  console.warn(`prepare: no embedded database template (a start makes it): ${err?.message ?? err}`)
}

try {
  const { importSource } = await import('./compile-sources.mjs')
  const root = fileURLToPath(new URL('..', import.meta.url))
  const { prepareMigratedTemplate } = await importSource(root, 'db/migrated-template')
  const started = performance.now()
  const { file, made } = await prepareMigratedTemplate()
  const took = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`prepare: migrated database template ${made ? `made in ${took} s` : 'already there'}: ${file}`)
} catch (err) {
  console.warn(`prepare: no migrated database template (a start migrates): ${err?.message ?? err}`)
}
process.exit(0)
