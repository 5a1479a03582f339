// Connection filter rules on their own: which deciders each key takes, the values, who passes.
import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/http/errors.ts'
import { normalise, passes, refusal } from '../../src/modules/connections/rules.ts'

const facts = { tags: ['Design', 'Figma'], afroScore: 40, verified: false }
const rule = (key: string, decider: string, value: unknown, event = 'SEND_INVITE') =>
  normalise({ event, key, decider, value })

describe('connection filter rules', () => {
  it('decides each key and decider', () => {
    expect(passes(rule('afroScore', 'greater_than', 39), facts)).toBe(true)
    expect(passes(rule('afroScore', 'greater_than', '40'), facts)).toBe(false)
    expect(passes(rule('afroScore', 'less_than', 41), facts)).toBe(true)
    expect(passes(rule('afroScore', 'equal_to', 40), facts)).toBe(true)
    expect(passes(rule('afroScore', 'between', ['10', 40]), facts)).toBe(true)
    expect(passes(rule('tagCount', 'between', [3, 5]), facts)).toBe(false)
    expect(passes(rule('tagCount', 'equal_to', 2), facts)).toBe(true)
    expect(passes(rule('tags', 'contains', ['design']), facts)).toBe(true)
    expect(passes(rule('tags', 'contains', 'FIGMA'), facts)).toBe(true)
    expect(passes(rule('tags', 'contains', ['design', 'rust']), facts)).toBe(false)
    expect(passes(rule('verified', 'equal_to', true), facts)).toBe(false)
    expect(passes(rule('verified', 'equal_to', 'true'), { ...facts, verified: true })).toBe(true)
  })

  it('refuses a decider the key does not take and a value the decider does not take, naming the field', () => {
    const bad: [string, string, unknown, string][] = [
      ['tags', 'greater_than', 3, '/decider'],
      ['verified', 'contains', true, '/decider'],
      ['afroScore', 'contains', 3, '/decider'],
      ['afroScore', 'greater_than', 'many', '/value'],
      ['afroScore', 'between', [5, 1], '/value'],
      ['afroScore', 'between', 5, '/value'],
      ['tags', 'contains', [], '/value'],
      ['tags', 'contains', [''], '/value'],
      ['verified', 'equal_to', false, '/value'],
    ]
    for (const [key, decider, value, path] of bad) {
      let err: unknown
      try {
        rule(key, decider, value)
      } catch (e) {
        err = e
      }
      expect(err, `${key} ${decider} ${JSON.stringify(value)}`).toBeInstanceOf(AppError)
      expect((err as AppError).details.errors).toEqual([{ path, message: expect.any(String) }])
    }
  })

  it('says which rule refused', () => {
    expect(refusal(rule('afroScore', 'greater_than', 50))).toBe(
      'This user accepts invites only from people with afroScore greater than 50',
    )
    expect(refusal(rule('tags', 'contains', ['Design'], 'SEND_APPLICATION'))).toBe(
      'This user accepts applications to their jobs only from people with the tags design',
    )
    expect(refusal(rule('verified', 'equal_to', true, 'CREATE_CONVERSATION'))).toBe(
      'This user accepts new conversations only from people with a verified identity',
    )
  })
})
