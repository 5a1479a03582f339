// Point-in-time recovery as docs/operations.md (PostgreSQL: point-in-time recovery) writes it, on a
// scratch cluster of the machine's PostgreSQL binaries: WAL archived with the documented
// archive_command, a base backup (pg_basebackup), rows written after it, then a recovery from the
// base backup with the documented restore_command to a moment between two commits: the rows
// committed before that moment are back, the one after is not. CI installs the binaries (.ci/run).
import { execFile } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { appendFile, cp } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, inject, it } from 'vitest'

const exec = promisify(execFile)

/** The newest PostgreSQL installation's bin directory with the tools the recovery needs. */
function binaries(): string | undefined {
  const base = '/usr/lib/postgresql'
  if (!existsSync(base)) return undefined
  for (const v of readdirSync(base).sort((a, b) => Number(b) - Number(a))) {
    const bin = join(base, v, 'bin')
    if (['initdb', 'pg_ctl', 'pg_basebackup', 'psql'].every((t) => existsSync(join(bin, t)))) return bin
  }
  return undefined
}

const bin = binaries()
const asRoot = process.getuid?.() === 0
const dirs: string[] = []
const running: string[] = []

/** initdb and the server refuse to run as root: they run as the `postgres` user then. */
async function tool(name: string, args: string[]) {
  const path = join(bin!, name)
  return asRoot
    ? exec('runuser', ['-u', 'postgres', '--', path, ...args], { timeout: 60_000 })
    : exec(path, args, { timeout: 60_000 })
}

async function uidOfPostgres(): Promise<number> {
  return Number((await exec('id', ['-u', 'postgres'])).stdout.trim())
}

function scratch(owner?: number) {
  const dir = mkdtempSync(join(tmpdir(), 'wp-pitr-'))
  if (owner !== undefined) chownSync(dir, owner, owner)
  dirs.push(dir)
  return dir
}

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000)
    const free = await new Promise<boolean>((resolve) => {
      const s = createServer()
      s.once('error', () => resolve(false))
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
    })
    if (free) return port
  }
}

async function sql(port: number, socketDir: string, query: string): Promise<string> {
  const { stdout } = await tool('psql', [
    '-h',
    socketDir,
    '-p',
    String(port),
    '-U',
    'postgres',
    '-At',
    '-c',
    query,
  ])
  return stdout.trim()
}

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs
  while (!(await fn().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

afterAll(async () => {
  for (const data of running) await tool('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']).catch(() => {})
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe.runIf(inject('testDb') === 'postgres')('point-in-time recovery', () => {
  it.skipIf(!bin)(
    'replays archived WAL over a base backup up to a moment between two commits',
    {
      timeout: 120_000,
    },
    async () => {
      const owner = asRoot ? await uidOfPostgres() : undefined
      const root = scratch(owner)
      const data = join(root, 'data')
      const archive = join(root, 'wal-archive')
      const base = join(root, 'base')
      const socket = join(root, 'socket')
      for (const d of [archive, socket]) {
        await exec('mkdir', ['-p', d])
        if (owner !== undefined) chownSync(d, owner, owner)
      }
      const port = await freePort()
      await tool('initdb', ['-D', data, '-U', 'postgres', '--auth=trust'])
      // The documented pair (docs/operations.md), with this test's archive directory.
      const archiveCommand = `test ! -f ${archive}/%f && cp %p ${archive}/%f`
      const restoreCommand = `cp ${archive}/%f %p`
      await appendFile(
        join(data, 'postgresql.conf'),
        [
          `port = ${port}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${socket}'`,
          'wal_level = replica',
          'archive_mode = on',
          `archive_command = '${archiveCommand}'`,
          '',
        ].join('\n'),
      )
      await tool('pg_ctl', ['-D', data, '-l', join(root, 'source.log'), '-w', 'start'])
      running.push(data)
      await sql(port, socket, 'create table money (n int primary key)')
      await sql(port, socket, 'insert into money values (1)')
      await tool('pg_basebackup', [
        '-D',
        base,
        '-h',
        socket,
        '-p',
        String(port),
        '-U',
        'postgres',
        '-X',
        'stream',
        '-c',
        'fast',
      ])
      await sql(port, socket, 'insert into money values (2)')
      const target = await sql(port, socket, 'select clock_timestamp()')
      await sql(port, socket, 'insert into money values (3)')
      const segment = await sql(port, socket, 'select pg_walfile_name(pg_switch_wal())')
      await until(
        'the last segment archived',
        async () => (await sql(port, socket, 'select last_archived_wal from pg_stat_archiver')) >= segment,
      )
      await tool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
      running.pop()

      // Recovery: the base backup, the restore_command and the target; then promoted.
      const restored = join(root, 'restored')
      await cp(base, restored, { recursive: true })
      if (owner !== undefined) await exec('chown', ['-R', 'postgres:postgres', restored])
      await appendFile(
        join(restored, 'postgresql.auto.conf'),
        [
          `restore_command = '${restoreCommand}'`,
          `recovery_target_time = '${target}'`,
          "recovery_target_action = 'promote'",
          'archive_mode = off',
          '',
        ].join('\n'),
      )
      writeFileSync(join(restored, 'recovery.signal'), '')
      if (owner !== undefined) chownSync(join(restored, 'recovery.signal'), owner, owner)
      const began = Date.now()
      await tool('pg_ctl', ['-D', restored, '-l', join(root, 'restored.log'), '-w', 'start'])
      running.push(restored)
      await until(
        'the recovery to end',
        async () => (await sql(port, socket, 'select pg_is_in_recovery()')) === 'f',
      )
      const recoveredMs = Date.now() - began
      expect(await sql(port, socket, "select string_agg(n::text, ',' order by n) from money")).toBe('1,2')
      // recovery of a small cluster takes seconds; the time is printed for the runbook's RTO
      console.log(`point-in-time recovery replayed to ${target} in ${recoveredMs} ms`)
    },
  )
})
