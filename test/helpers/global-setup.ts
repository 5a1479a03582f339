// Once per test run: a migrated PGlite database dumped to a file that every test file starts
// from (opening a fresh PGlite costs seconds; loading a dump well under one), itself started from
// the machine's cluster template, or, on PostgreSQL, a check that the server answers.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { TestProject } from 'vitest/node'
import { prepareClusterTemplate } from '../../src/db/embedded.ts'
import { openPGlite } from '../../src/db/index.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string
    testDb: 'pglite' | 'postgres'
    postgresUrl: string
  }
}

export default async function setup(project: TestProject) {
  const testDb = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite'
  const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  project.provide('testDb', testDb)
  project.provide('postgresUrl', postgresUrl)
  if (testDb === 'postgres') {
    const client = new pg.Client({ connectionString: postgresUrl })
    await client.connect()
    await client.query('select 1')
    await client.end()
    project.provide('pgliteTemplate', '')
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'wp-test-'))
  // From the machine's cluster template (made now if absent) instead of initdb in this process.
  const { file: cluster } = await prepareClusterTemplate()
  const database = await openPGlite({
    loadDataDir: new Blob([readFileSync(cluster)], { type: 'application/x-gzip' }),
  })
  await migrateToLatest(database.db)
  const dump = await database.client.dumpDataDir('none')
  const file = join(dir, 'template.tar')
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
  await database.close()
  project.provide('pgliteTemplate', file)
  return () => rmSync(dir, { recursive: true, force: true })
}
