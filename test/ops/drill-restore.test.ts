// The restore drill as CI runs it: scripts/drill-restore.mjs end to end on scratch databases of the
// suite's PostgreSQL server (logical backup while serving, restore, report, migrate, keys, start,
// re-attach, reconcile, balances equal to the source's). pg_dump and pg_restore work on a
// PostgreSQL server only: with the embedded database the suite has no server to drill against.
import { spawn } from 'node:child_process'
import { describe, expect, inject, it } from 'vitest'

describe.runIf(inject('testDb') === 'postgres')('the restore drill (scripts/drill-restore.mjs)', () => {
  it('restores a logical backup, reconciles it with the chain and matches every balance of the source', {
    timeout: 240_000,
  }, async () => {
    const child = spawn(process.execPath, ['scripts/drill-restore.mjs'], {
      env: { ...process.env, DRILL_DATABASE_URL: inject('postgresUrl') },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => {
      output += d
    })
    child.stderr.on('data', (d) => {
      output += d
    })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    expect(code, output).toBe(0)
    expect(output).toMatch(/ok: the withdrawal signed after the backup is listed/)
    expect(output).toMatch(/ok: reconciliation of the copy: ok/)
    expect(output).toMatch(/ok: all \d+ ledger balances equal the source's/)
    expect(output).toMatch(/ok: the deposit after the backup was credited once/)
    const rto = Number(output.match(/recovery time \(restore to reconciled copy\): ([\d.]+) s/)?.[1])
    // the drill's own target (docs/operations.md): a reconciled copy within 2 minutes of the restore
    expect(rto).toBeLessThan(120)
  })
})
