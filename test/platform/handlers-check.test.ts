// The start-up check of the composition root: a built app has a handler for every job kind the
// product declares (and registers no kind the catalogue does not list) and outcome handlers for
// every transfer purpose; a missing one stops start-up with its name; a second handler for one
// kind or purpose is refused; and the catalogue lists every kind declared on JobPayloads in src.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertHandled, JOB_KINDS } from '../../src/handlers-check.ts'
import { OutgoingSender } from '../../src/modules/settlement/outgoing/sender.ts'
import { TRANSFER_PURPOSES } from '../../src/modules/settlement/outgoing/types.ts'
import { JobQueue } from '../../src/platform/jobs/queue.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t?.close())

const noop = async () => {}

describe('handlers checked at start-up', () => {
  it('a built app runs every job kind of the catalogue, and no other, and handles every purpose', () => {
    expect([...t.app.services.jobs.kinds].sort()).toEqual([...JOB_KINDS].sort())
    expect(t.app.services.outgoing.unhandledPurposes()).toEqual([])
    expect(() => assertHandled(t.app.services.jobs, t.app.services.outgoing)).not.toThrow()
  })

  it('names the job kinds and purposes that have no handler', () => {
    const jobs = new JobQueue(t.database.db, pino({ enabled: false }), t.clock)
    for (const kind of JOB_KINDS.filter((k) => k !== 'webhooks.deliver' && k !== 'mail.send'))
      jobs.register(kind, noop)
    const sender = new OutgoingSender(t.app.services.outgoing.deps)
    for (const purpose of TRANSFER_PURPOSES.filter((p) => p !== 'fee.sweep'))
      sender.handle(purpose, { settled: noop, failed: noop })
    expect(() => assertHandled(jobs, sender)).toThrow(
      'job kinds without a handler: mail.send, webhooks.deliver; transfer purposes without outcome handlers: fee.sweep',
    )
    jobs.register('mail.send', noop)
    jobs.register('webhooks.deliver', noop)
    sender.handle('fee.sweep', { settled: noop, failed: noop })
    expect(() => assertHandled(jobs, sender)).not.toThrow()
  })

  it('refuses a second handler for one job kind or one purpose', () => {
    expect(() => t.app.services.jobs.register('mail.send', noop)).toThrow(
      'job kind mail.send has a handler already',
    )
    expect(() => t.app.services.outgoing.handle('withdrawal', { settled: noop, failed: noop })).toThrow(
      'outcome handlers of withdrawal are registered already',
    )
  })

  it('the catalogue lists every job kind a module declares on JobPayloads', () => {
    const src = join(import.meta.dirname, '../../src')
    const declared = new Set<string>()
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )) {
      const text = readFileSync(join(src, file), 'utf8')
      for (const [, body] of text.matchAll(/^ {2}interface JobPayloads \{\n([\s\S]*?)\n {2}\}/gm))
        for (const [, kind] of body!.matchAll(/^\s+'([^']+)':/gm)) declared.add(kind!)
    }
    expect(declared.size).toBeGreaterThanOrEqual(15)
    expect([...declared].sort()).toEqual([...JOB_KINDS].sort())
  })
})
