// Connection filter rules, pure: which events a rule guards, which keys and deciders go together,
// the value each takes, whether a person passes, and the sentence a refusal gives.
import { errors } from '../../http/errors.ts'

/** What a rule guards: a conversation opened with the owner, an invite to them, an application to their job. */
export const EVENTS = ['CREATE_CONVERSATION', 'SEND_INVITE', 'SEND_APPLICATION'] as const
export type FilterEvent = (typeof EVENTS)[number]
/** What a rule looks at: the other person's tags, how many, their score, their verified identity. */
export const KEYS = ['tags', 'tagCount', 'afroScore', 'verified'] as const
export type FilterKey = (typeof KEYS)[number]
export const DECIDERS = ['greater_than', 'less_than', 'equal_to', 'contains', 'between'] as const
export type Decider = (typeof DECIDERS)[number]

export const MAX_TAGS = 20

/** A rule as stored: its value normalised (numbers as numbers, tags lower-cased). */
export interface Rule {
  event: FilterEvent
  key: FilterKey
  decider: Decider
  value: number | string[] | [number, number] | true
}

/** What a rule is checked against. */
export interface Facts {
  tags: string[]
  afroScore: number
  verified: boolean
}

const NUMERIC: readonly Decider[] = ['greater_than', 'less_than', 'equal_to', 'between']
const DECIDERS_OF: Record<FilterKey, readonly Decider[]> = {
  tags: ['contains'],
  tagCount: NUMERIC,
  afroScore: NUMERIC,
  verified: ['equal_to'],
}

const toNumber = (v: unknown) =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN

/** Checks a rule sent by a client and answers it normalised (400 naming the field otherwise). */
export function normalise(input: { event: string; key: string; decider: string; value: unknown }): Rule {
  const event = input.event as FilterEvent
  const key = input.key as FilterKey
  const decider = input.decider as Decider
  if (!DECIDERS_OF[key].includes(decider))
    throw errors.field('/decider', `${key} takes ${DECIDERS_OF[key].join(' or ')}`)
  const v = input.value
  if (key === 'tags') {
    const list = (Array.isArray(v) ? v : [v]).map((t) =>
      typeof t === 'string' ? t.trim().toLowerCase() : '',
    )
    if (list.length === 0 || list.length > MAX_TAGS || list.some((t) => !t || t.length > 50))
      throw errors.field('/value', `a tag or a list of 1 to ${MAX_TAGS} tags`)
    return { event, key, decider, value: [...new Set(list)] }
  }
  if (key === 'verified') {
    if (v !== true && v !== 'true') throw errors.field('/value', 'verified takes the value true')
    return { event, key, decider, value: true }
  }
  if (decider === 'between') {
    const pair = Array.isArray(v) ? v.map(toNumber) : []
    if (pair.length !== 2 || pair.some((n) => !Number.isFinite(n)) || pair[0]! > pair[1]!)
      throw errors.field('/value', 'between takes two numbers, the lower first: [min, max]')
    return { event, key, decider, value: [pair[0]!, pair[1]!] }
  }
  const n = toNumber(v)
  if (!Number.isFinite(n)) throw errors.field('/value', `${decider} takes a number`)
  return { event, key, decider, value: n }
}

/** Whether a person with `facts` passes `rule`. */
export function passes(rule: Rule, facts: Facts): boolean {
  if (rule.key === 'verified') return facts.verified
  if (rule.key === 'tags') {
    const have = new Set(facts.tags.map((t) => t.toLowerCase()))
    return (rule.value as string[]).every((t) => have.has(t))
  }
  const n = rule.key === 'tagCount' ? facts.tags.length : facts.afroScore
  const v = rule.value
  switch (rule.decider) {
    case 'greater_than':
      return n > (v as number)
    case 'less_than':
      return n < (v as number)
    case 'equal_to':
      return n === v
    default: {
      const [min, max] = v as [number, number]
      return n >= min && n <= max
    }
  }
}

const WHAT: Record<FilterEvent, string> = {
  CREATE_CONVERSATION: 'new conversations',
  SEND_INVITE: 'invites',
  SEND_APPLICATION: 'applications to their jobs',
}
const DECIDED: Record<Decider, string> = {
  greater_than: 'greater than',
  less_than: 'less than',
  equal_to: 'equal to',
  contains: 'containing',
  between: 'between',
}

/** The sentence of a refusal, naming the rule. */
export function refusal(rule: Rule): string {
  const needs =
    rule.key === 'verified'
      ? 'with a verified identity'
      : rule.key === 'tags'
        ? `with the tags ${(rule.value as string[]).join(', ')}`
        : `with ${rule.key} ${DECIDED[rule.decider]} ${Array.isArray(rule.value) ? rule.value.join(' and ') : rule.value}`
  return `This user accepts ${WHAT[rule.event]} only from people ${needs}`
}
