// One rule for every string a client sends in a path, a query or a JSON body: a NUL character is
// refused with 400 before validation (PostgreSQL cannot store it in text, and no field needs it).
import type { FastifyInstance } from 'fastify'
import { errors } from './errors.ts'

/** JSON-pointer path of the first string (or key) holding a NUL character, or undefined. */
export function findNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '/' : undefined
  if (value === null || typeof value !== 'object') return undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}/${i}`)
      if (found) return found
    }
    return undefined
  }
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (key.includes('\u0000')) return at
    const found = findNul(v, at)
    if (found) return found
  }
  return undefined
}

export function registerNulGuard(app: FastifyInstance) {
  app.addHook('preValidation', async (req) => {
    for (const [part, value] of [
      ['path', req.params],
      ['query', req.query],
      ['body', req.body],
    ] as const) {
      // Streams and buffers (uploads) are checked where they are read.
      if (Buffer.isBuffer(value) || (value && typeof (value as { pipe?: unknown }).pipe === 'function'))
        continue
      const at = findNul(value)
      if (at) {
        const message = `must not contain a NUL character${part === 'body' ? '' : ` (in ${part})`}`
        throw errors.field(at.replaceAll('\u0000', '\\0'), message)
      }
    }
  })
}
