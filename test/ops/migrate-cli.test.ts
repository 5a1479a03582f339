// `main.ts migrate` (what `npm run migrate` runs) says what it did: the migrations it applied, or
// that the database was up to date.
import { describe, expect, it } from 'vitest'
import { serviceDatabase } from '../main/support.ts'
import { run, tempDirs } from './support.ts'

describe('main.ts migrate', () => {
  it('lists the migrations it applied, then says the database is up to date', {
    timeout: 120_000,
  }, async () => {
    const dirs = tempDirs()
    const db = await serviceDatabase()
    const env = {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      DATA_DIR: dirs.make(),
      ...db.env,
    }
    const migrate = async () => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'migrate'], { env })
      return stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; applied?: string[] })
    }
    try {
      const first = await migrate()
      const applied = first.find((l) => l.msg === 'migrations applied')
      if (db.kind === 'postgres') {
        // a new server database: every migration is applied and named
        expect(applied?.applied?.length).toBeGreaterThan(10)
        expect(applied?.applied?.[0]).toMatch(/^0001-/)
      } else if (!applied) {
        // a new embedded database unpacked from a current migrated template has nothing to apply
        expect(first.map((l) => l.msg)).toContain('database up to date: no migration to apply')
      }
      const second = await migrate()
      expect(second.map((l) => l.msg)).toContain('database up to date: no migration to apply')
      expect(second.some((l) => l.msg === 'migrations applied')).toBe(false)
    } finally {
      await db.drop()
      dirs.cleanup()
    }
  })
})
