// The embedded database's files: a new data directory is unpacked from the cluster template (made in
// a worker thread when absent or damaged, then kept), comes up with the service's settings and
// keeps its data across a reopen; a directory holding anything is left alone; npm ci's prepare
// script makes the machine's template; the tar reader refuses what a cluster never holds.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { gunzipSync, gzipSync } from 'node:zlib'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { embeddedSettings, ensureCluster, extractTarGz, templateFile } from '../../src/db/embedded.ts'
import { openPGlite } from '../../src/db/index.ts'

const root = mkdtempSync(join(tmpdir(), 'wp-embedded-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const template = join(root, 'cache', 'cluster.tar.gz')

/** One tar header block (ustar) followed by the data blocks of `data`. */
function tarEntry(name: string, type: string, data = new Uint8Array()): Uint8Array {
  const header = new Uint8Array(512)
  const put = (at: number, text: string) => header.set(new TextEncoder().encode(text), at)
  put(0, name)
  put(100, '0000600\0')
  put(124, `${data.length.toString(8).padStart(11, '0')}\0`)
  put(156, type)
  put(257, 'ustar\0')
  const blocks = new Uint8Array(512 + Math.ceil(data.length / 512) * 512)
  blocks.set(header)
  blocks.set(data, 512)
  return blocks
}
const tarOf = (...entries: Uint8Array[]) => Buffer.concat([...entries, new Uint8Array(1024)])
const streamOf = (tar: Uint8Array) => Readable.from([gzipSync(tar)])

describe('the embedded database', () => {
  it('unpacks a new data directory from a template made once, with the settings, and keeps its data', async () => {
    const dataDir = join(root, 'one', 'pg')
    expect(await ensureCluster(dataDir, template)).toEqual({
      unpacked: true,
      templateMade: true,
      migrated: false,
    })
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true)
    expect(gunzipSync(readFileSync(template)).length).toBeGreaterThan(1024)
    // nothing half-made is left beside it
    expect(readdirSync(join(root, 'one'))).toEqual(['pg'])

    const first = await openPGlite({ dataDir, settings: embeddedSettings })
    const shown = await sql<{ sharedBuffers: string }>`show shared_buffers`.execute(first.db)
    expect(shown.rows[0]?.sharedBuffers).toBe('16MB')
    await sql`create table kept (note text)`.execute(first.db)
    await sql`insert into kept values ('still here')`.execute(first.db)
    await first.close()

    expect(await ensureCluster(dataDir, template)).toEqual({
      unpacked: false,
      templateMade: false,
      migrated: false,
    })
    const again = await openPGlite({ dataDir, settings: embeddedSettings })
    const rows = await sql<{ note: string }>`select note from kept`.execute(again.db)
    expect(rows.rows).toEqual([{ note: 'still here' }])
    await again.close()
  })

  it('uses the kept template for the next new directory, and makes a damaged one again', async () => {
    expect(await ensureCluster(join(root, 'two', 'pg'), template)).toEqual({
      unpacked: true,
      templateMade: false,
      migrated: false,
    })
    writeFileSync(template, 'not a gzipped tar')
    const dataDir = join(root, 'three', 'pg')
    expect(await ensureCluster(dataDir, template)).toEqual({
      unpacked: true,
      templateMade: true,
      migrated: false,
    })
    expect(gunzipSync(readFileSync(template)).length).toBeGreaterThan(1024)
    const database = await openPGlite({ dataDir })
    const one = await sql<{ one: number }>`select 1 as one`.execute(database.db)
    expect(one.rows).toEqual([{ one: 1 }])
    await database.close()
  })

  it('leaves a directory that holds anything as it is', async () => {
    const dataDir = join(root, 'four', 'pg')
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'something'), 'x')
    // the migrated template is not even looked for
    const unasked = () => {
      throw new Error('asked for the migrated template of a directory already there')
    }
    expect(await ensureCluster(dataDir, template, unasked)).toEqual({
      unpacked: false,
      templateMade: false,
      migrated: false,
    })
    expect(readdirSync(dataDir)).toEqual(['something'])
  })

  it('keeps the template of the installed PGlite version beside the installed packages', () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'),
    ) as { version: string }
    expect(templateFile()).toMatch(
      new RegExp(`node_modules/\\.cache/workpay/pglite-${version}-cluster\\.tar\\.gz$`),
    )
  })

  it("is prepared by npm ci's prepare script, which does nothing on a production install", () => {
    const script = join(import.meta.dirname, '../../scripts/prepare.mjs')
    const run = (env: Record<string, string>) =>
      execFileSync(process.execPath, [script], { env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' })
    expect(run({ NODE_ENV: 'production', npm_config_omit: 'dev' })).toContain('production install')
    const said = run({})
    expect(said).toContain(`embedded database template`)
    expect(gunzipSync(readFileSync(templateFile())).length).toBeGreaterThan(1024)
    // and the migrated template, from the sources as \`npm start\` runs them
    expect(said).toMatch(
      /prepare: migrated database template (made in [\d.]+ s|already there): \S+-migrated-[0-9a-f]{16}\.tar\.gz/,
    )
  })

  it('reads files and directories from a gzipped tar, and refuses links, names leaving the directory and a cut archive', async () => {
    const dir = join(root, 'tar')
    const page = new Uint8Array(70_000).fill(7)
    await extractTarGz(
      streamOf(tarOf(tarEntry('/base', '5'), tarEntry('/base/1', '0', page), tarEntry('/empty', '0'))),
      dir,
    )
    expect(readFileSync(join(dir, 'base', '1'))).toEqual(Buffer.from(page))
    expect(readFileSync(join(dir, 'empty'))).toHaveLength(0)
    await expect(
      extractTarGz(streamOf(tarOf(tarEntry('../outside', '0'))), join(root, 'tar2')),
    ).rejects.toThrow(/outside/)
    await expect(extractTarGz(streamOf(tarOf(tarEntry('/link', '2'))), join(root, 'tar3'))).rejects.toThrow(
      /entry type/,
    )
    const cut = tarEntry('/base/2', '0', page).subarray(0, 20_000)
    await expect(extractTarGz(streamOf(cut), join(root, 'tar4'))).rejects.toThrow(/cut short/)
    expect(existsSync(join(root, 'outside'))).toBe(false)
  })
})
