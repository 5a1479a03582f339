// The embedded database's migrated template: the cluster template (src/db/embedded.ts) with every
// migration applied, dumped as a gzipped tar and kept beside it under the migrations' digest
// (`pglite-<version>-migrated-<digest>.tar.gz`). A new data directory unpacked from it starts with
// nothing to migrate: on the bench machine the migrations were about 2 of the 5 s a start on a new
// directory took. `npm ci`'s prepare script makes it from the sources as `npm start` runs them, so
// that both compute the same digest; a start that finds none for its digest (a migration added or
// changed since) unpacks the cluster template and applies the migrations itself, as before. Only
// the template of the current digest is kept. Migrations write no secret (the service makes its
// keys at start), so two databases unpacked from one template share only the seeded rows.
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { sql } from 'kysely'
import { prepareClusterTemplate, templateFile, wholeTemplate, writeWhole } from './embedded.ts'
import { openPGlite } from './index.ts'
import { migrateToLatest, migrationsDigest } from './migrate.ts'

const CLUSTER_SUFFIX = /-cluster\.tar\.gz$/

/** Where the migrated template of `digest` is kept: beside the cluster template `cluster`. */
export function migratedTemplateFile(digest = migrationsDigest(), cluster = templateFile()): string {
  return cluster.replace(CLUSTER_SUFFIX, `-migrated-${digest}.tar.gz`)
}

/**
 * Makes the migrated template of the migrations in `folder` (the service's by default) unless a
 * whole one is there, and removes those of other digests; answers its file and whether it was made.
 */
export async function prepareMigratedTemplate(
  opts: { folder?: URL; cluster?: string } = {},
): Promise<{ file: string; made: boolean }> {
  const cluster = opts.cluster ?? templateFile()
  const file = migratedTemplateFile(migrationsDigest(opts.folder), cluster)
  if (await wholeTemplate(file)) return { file, made: false }
  await prepareClusterTemplate(cluster)
  const database = await openPGlite({
    loadDataDir: new Blob([readFileSync(cluster)], { type: 'application/x-gzip' }),
  })
  try {
    await migrateToLatest(database.db, opts.folder ? { folder: opts.folder } : {})
    // A checkpoint first: a cluster unpacked from the dump then starts from it, instead of
    // replaying the migrations' whole write-ahead log at every new directory's first open.
    await sql`checkpoint`.execute(database.db)
    const dump = await database.client.dumpDataDir('gzip')
    writeWhole(file, new Uint8Array(await dump.arrayBuffer()))
  } finally {
    await database.close()
  }
  const others = basename(cluster).replace(CLUSTER_SUFFIX, '-migrated-')
  for (const name of readdirSync(dirname(file)))
    if (name.startsWith(others) && name.endsWith('.tar.gz') && name !== basename(file))
      rmSync(join(dirname(file), name), { force: true })
  return { file, made: true }
}
