// The embedded database's migrated template: made once per state of the migrations (their digest)
// from the cluster template, with every migration applied; a new data directory unpacked from it
// has nothing left to migrate; a start whose migrations have no template (or a damaged one)
// unpacks the cluster template and migrates itself; templates of other states are removed.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { ensureCluster, prepareClusterTemplate, templateFile } from '../../src/db/embedded.ts'
import { openPGlite } from '../../src/db/index.ts'
import { migrateToLatest, migrationsDigest } from '../../src/db/migrate.ts'
import { migratedTemplateFile, prepareMigratedTemplate } from '../../src/db/migrated-template.ts'

const root = mkdtempSync(join(tmpdir(), 'wp-migrated-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const folder = (name: string) => new URL(`./migrations/${name}/`, import.meta.url)
const first = folder('first')
const second = folder('second')

/** A cache directory of its own, holding a copy of the machine's cluster template. */
async function cache(name: string): Promise<string> {
  const { file } = await prepareClusterTemplate()
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  const cluster = join(dir, basename(templateFile()))
  copyFileSync(file, cluster)
  return cluster
}

async function tablesIn(dataDir: string): Promise<{ tables: string[]; recorded: string[] }> {
  const database = await openPGlite({ dataDir })
  try {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_name like 'fx\\_%' order by 1`.execute(database.db)
    const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`
      .execute(database.db)
      .then((r) => r.rows.map((row) => row.name))
      .catch(() => [] as string[])
    return { tables: tables.rows.map((r) => r.name), recorded }
  } finally {
    await database.close()
  }
}

/** A new directory unpacked from the cluster template, passing `migrated` over: nothing migrated. */
async function expectClusterOnly(dataDir: string, cluster: string, migrated: string) {
  expect(await ensureCluster(dataDir, cluster, () => migrated)).toEqual({
    unpacked: true,
    templateMade: false,
    migrated: false,
  })
  expect(await tablesIn(dataDir)).toEqual({ tables: [], recorded: [] })
}

describe('the migrated template', () => {
  it('has a digest of the migrations that changes with a new migration or a changed one', () => {
    expect(migrationsDigest(first)).toMatch(/^[0-9a-f]{16}$/)
    expect(migrationsDigest(first)).toBe(migrationsDigest(first))
    expect(migrationsDigest(second)).not.toBe(migrationsDigest(first))
    const changed = join(root, 'changed')
    mkdirSync(changed)
    for (const f of readdirSync(first)) copyFileSync(new URL(f, first), join(changed, f))
    const url = new URL(`file://${changed}/`)
    expect(migrationsDigest(url)).toBe(migrationsDigest(first))
    writeFileSync(join(changed, '0002-beta.ts'), '// changed\nexport async function up() {}\n')
    expect(migrationsDigest(url)).not.toBe(migrationsDigest(first))
  })

  it('is kept beside the cluster template under the digest', () => {
    expect(migratedTemplateFile('0123456789abcdef', '/x/pglite-1.2.3-cluster.tar.gz')).toBe(
      '/x/pglite-1.2.3-migrated-0123456789abcdef.tar.gz',
    )
  })

  it('is made once with every migration applied, and a new directory from it has nothing to migrate', async () => {
    const cluster = await cache('made')
    const made = await prepareMigratedTemplate({ folder: first, cluster })
    expect(made).toEqual({ file: migratedTemplateFile(migrationsDigest(first), cluster), made: true })
    expect(await prepareMigratedTemplate({ folder: first, cluster })).toEqual({ ...made, made: false })

    const dataDir = join(root, 'made-data', 'pg')
    expect(await ensureCluster(dataDir, cluster, () => made.file)).toEqual({
      unpacked: true,
      templateMade: false,
      migrated: true,
    })
    expect(await tablesIn(dataDir)).toEqual({
      tables: ['fx_alpha', 'fx_beta'],
      recorded: ['0001-alpha', '0002-beta'],
    })
    const database = await openPGlite({ dataDir })
    expect(await migrateToLatest(database.db, { folder: first })).toEqual([])
    await database.close()
  })

  it('leaves a start with other migrations to the cluster template, and removes the template of the old state', async () => {
    const cluster = await cache('moved')
    const old = await prepareMigratedTemplate({ folder: first, cluster })
    const wanted = migratedTemplateFile(migrationsDigest(second), cluster)

    // No template for these migrations: the cluster template, and the start migrates.
    const dataDir = join(root, 'moved-data', 'pg')
    await expectClusterOnly(dataDir, cluster, wanted)
    expect(existsSync(wanted)).toBe(false)

    const now = await prepareMigratedTemplate({ folder: second, cluster })
    expect(now).toEqual({ file: wanted, made: true })
    expect(existsSync(old.file)).toBe(false)
    expect(readdirSync(join(root, 'moved')).sort()).toEqual([basename(cluster), basename(wanted)].sort())
  })

  it('passes over a damaged template, and makes it again', async () => {
    const cluster = await cache('damaged')
    const { file } = await prepareMigratedTemplate({ folder: first, cluster })
    writeFileSync(file, 'not a gzipped tar')

    const dataDir = join(root, 'damaged-data', 'pg')
    await expectClusterOnly(dataDir, cluster, file)
    // nothing half-unpacked is left beside the directory
    expect(readdirSync(join(root, 'damaged-data'))).toEqual(['pg'])

    expect(await prepareMigratedTemplate({ folder: first, cluster })).toEqual({ file, made: true })
    const again = join(root, 'damaged-again', 'pg')
    expect((await ensureCluster(again, cluster, () => file)).migrated).toBe(true)
    expect((await tablesIn(again)).tables).toEqual(['fx_alpha', 'fx_beta'])
  })
})
