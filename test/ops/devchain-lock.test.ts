// The in-process dev chain journals into the database it runs beside: a second process on the same
// PostgreSQL database that would start its own (no EVM_RPC_URL) is refused with exit status 2,
// and may start once the first has stopped. (The embedded database belongs to one process anyway.)
import { afterAll, describe, expect, inject, it } from 'vitest'
import { freePort, serviceDatabase } from '../main/support.ts'
import { type Child, run, spawnService, stopService, tempDirs } from './support.ts'

const dirs = tempDirs()
let first: Child | undefined
let drop: () => Promise<void> = async () => {}
afterAll(async () => {
  if (first) await stopService(first)
  await drop()
  dirs.cleanup()
})

describe.runIf(inject('testDb') === 'postgres')('a second process with an in-process dev chain', () => {
  it('is refused while another holds the dev chain of the database, and starts after it stopped', {
    timeout: 180_000,
  }, async () => {
    const db = await serviceDatabase()
    drop = db.drop
    const env = { NODE_ENV: 'development', LOG_LEVEL: 'info', ...db.env }
    await run(process.execPath, ['--import', 'tsx', 'src/main.ts', 'migrate'], {
      env: { ...process.env, ...env, DATA_DIR: dirs.make() },
    })
    const args = ['--import', 'tsx', 'src/main.ts', 'worker']
    const worker = async () => {
      const port = await freePort()
      return spawnService(
        args,
        { ...env, DATA_DIR: dirs.make(), WORKER_PORT: String(port) },
        { listening: new RegExp(`Server listening at (http://127\\.0\\.0\\.1:${port})`) },
      )
    }
    first = await worker()

    const second = await run(process.execPath, args, {
      env: { ...process.env, ...env, DATA_DIR: dirs.make() },
    }).then(
      () => ({ code: 0, stdout: '' }),
      (err: { code: number; stdout: string }) => err,
    )
    expect(second.code).toBe(2)
    expect(second.stdout).toContain('another process runs the in-process dev chain on this database')

    expect(await stopService(first)).toBe(0)
    first = await worker()
    expect(first.lines.some((l) => l.includes('"msg":"started"'))).toBe(true)
  })
})
