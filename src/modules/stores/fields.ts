// The fields of a collection schema (the SDK's FieldDefinitionDto, with optional enum, length and
// range bounds) and the check of a store record against them. Pure: no database.
import { errors, type FieldError } from '../../http/errors.ts'

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'array', 'object'] as const
export type FieldType = (typeof FIELD_TYPES)[number]
/** Keys a record keeps for itself. */
export const RESERVED = ['_id', 'owner', 'isPrivate', 'createdAt', 'updatedAt', 'page', 'limit'] as const

export interface FieldDefinition {
  name: string
  type: FieldType
  required: boolean
  unique: boolean
  default?: string
  enum?: string[]
  minLength?: number
  maxLength?: number
  min?: number
  max?: number
}

/** Checks a schema's fields (names unique and not reserved, bounds that make sense, defaults that fit). */
export function checkFields(fields: FieldDefinition[]) {
  const seen = new Set<string>()
  fields.forEach((f, i) => {
    const at = `/schema/${i}`
    if (seen.has(f.name)) throw errors.field(`${at}/name`, 'two fields have this name')
    if ((RESERVED as readonly string[]).includes(f.name)) throw errors.field(`${at}/name`, 'a reserved name')
    seen.add(f.name)
    if (f.unique && !['string', 'number'].includes(f.type))
      throw errors.field(`${at}/unique`, 'only string and number fields can be unique')
    if (f.enum && f.type !== 'string') throw errors.field(`${at}/enum`, 'only string fields take an enum')
    if (f.min !== undefined && f.max !== undefined && f.min > f.max)
      throw errors.field(`${at}/min`, 'min is above max')
    if (f.minLength !== undefined && f.maxLength !== undefined && f.minLength > f.maxLength)
      throw errors.field(`${at}/minLength`, 'minLength is above maxLength')
    if (f.default !== undefined) {
      const problems = checkValue(f, defaultOf(f), `${at}/default`)
      if (problems.length) throw errors.validation('The default does not fit its field', problems)
    }
  })
}

function defaultOf(f: FieldDefinition): unknown {
  const d = f.default!
  if (f.type === 'number') return Number(d)
  if (f.type === 'boolean') return d === 'true'
  if (f.type === 'array' || f.type === 'object') {
    try {
      return JSON.parse(d)
    } catch {
      return undefined
    }
  }
  return d
}

function checkValue(f: FieldDefinition, v: unknown, path: string): FieldError[] {
  const bad = (message: string) => [{ path, message }]
  switch (f.type) {
    case 'string': {
      if (typeof v !== 'string') return bad('must be a string')
      if (f.enum && !f.enum.includes(v)) return bad(`must be one of ${f.enum.join(', ')}`)
      if (f.minLength !== undefined && v.length < f.minLength)
        return bad(`must be at least ${f.minLength} characters`)
      if (f.maxLength !== undefined && v.length > f.maxLength)
        return bad(`must be at most ${f.maxLength} characters`)
      if (v.includes('\u0000')) return bad('must not contain NUL')
      return []
    }
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return bad('must be a number')
      if (f.min !== undefined && v < f.min) return bad(`must be at least ${f.min}`)
      if (f.max !== undefined && v > f.max) return bad(`must be at most ${f.max}`)
      return []
    case 'boolean':
      return typeof v === 'boolean' ? [] : bad('must be true or false')
    case 'date':
      return typeof v === 'string' && !Number.isNaN(Date.parse(v)) && /^\d{4}-\d{2}-\d{2}/.test(v)
        ? []
        : bad('must be an ISO 8601 date')
    case 'array':
      if (!Array.isArray(v)) return bad('must be an array')
      if (f.minLength !== undefined && v.length < f.minLength)
        return bad(`must have at least ${f.minLength} items`)
      if (f.maxLength !== undefined && v.length > f.maxLength)
        return bad(`must have at most ${f.maxLength} items`)
      return []
    default:
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? [] : bad('must be an object')
  }
}

/**
 * A record's data checked against the fields: unknown keys refused, each value of its type and
 * bounds, required ones present (on a create, or when `partial` is false), defaults filled in.
 * Every problem is named at once (400).
 */
export function checkRecord(fields: FieldDefinition[], input: Record<string, unknown>, partial: boolean) {
  const problems: FieldError[] = []
  const byName = new Map(fields.map((f) => [f.name, f]))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(input)) {
    if (k === 'isPrivate') continue
    const f = byName.get(k)
    if (!f) {
      problems.push({ path: `/${k}`, message: 'not a field of this schema' })
      continue
    }
    if (v === null && !f.required && partial) {
      out[k] = null
      continue
    }
    const p = checkValue(f, v, `/${k}`)
    if (p.length) problems.push(...p)
    else out[k] = v
  }
  if (!partial)
    for (const f of fields) {
      if (out[f.name] !== undefined) continue
      if (f.default !== undefined) out[f.name] = defaultOf(f)
      else if (f.required) problems.push({ path: `/${f.name}`, message: 'is required' })
    }
  if (problems.length)
    throw errors.validation(`Invalid record: ${problems[0]!.path} ${problems[0]!.message}`, problems)
  return out
}
