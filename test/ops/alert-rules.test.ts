// The Prometheus alert rules shipped in deploy/prometheus: valid (`promtool check rules`), each
// alarm shown firing and staying quiet by its unit tests (`promtool test rules`), and every
// workpay_* series they use is one the service exports.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { scrape } from './prometheus.ts'

const dir = fileURLToPath(new URL('../../deploy/prometheus/', import.meta.url))
const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: dir, encoding: 'utf8' })

interface Rule {
  alert: string
  expr: string
}
const rules: Rule[] = (
  parse(readFileSync(`${dir}alerts.yml`, 'utf8')) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((g) => g.rules)

describe('alert rules', () => {
  it('pass promtool check rules', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/)
  })

  it('pass their unit tests, and every rule is tested', () => {
    expect(promtool('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/)
    const tests = readFileSync(`${dir}alerts.test.yml`, 'utf8')
    for (const r of rules) expect(tests, r.alert).toContain(`alertname: ${r.alert}`)
  })

  it('cover every alarm of the runbook table', () => {
    const names = rules.map((r) => r.alert)
    for (const alarm of [
      'WorkpayLedgerDrift',
      'WorkpayCoinHalted',
      'WorkpayTransferStuck',
      'WorkpayQueueBacklog',
      'WorkpayWatcherBehind',
      'WorkpayGasWalletLow',
      'WorkpayReconciliationNotRun',
      'WorkpayWebhookFailures',
    ])
      expect(names).toContain(alarm)
  })
})

describe('the series the rules use', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp()
  })
  afterAll(() => t.close())

  it('are exported by the service (a rule on a series that does not exist would never fire)', async () => {
    const res = await t.req({ method: 'GET', url: '/metrics' })
    // HELP lines name every registered metric, also those with no sample in this scrape
    const exported = new Set([
      ...scrape(res).map((s) => s.name),
      ...[...res.body.matchAll(/^# HELP (\S+)/gm)].map((m) => m[1]!),
    ])
    const used = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\b(workpay_[a-z_]+)/g)].map((m) => m[1]!)))
    expect(used.size).toBeGreaterThan(10)
    for (const name of used) expect(exported, name).toContain(name)
  })
})
