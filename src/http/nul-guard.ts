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

const PARTS = ['path', 'query', 'body'] as const

export function registerNulGuard(app: FastifyInstance) {
  // A plain callback, not an async function: it runs on every request.
  app.addHook('preValidation', (req, _reply, done) => {
    for (const part of PARTS) {
      const value = part === 'path' ? req.params : part === 'query' ? req.query : req.body
      // Streams and buffers (uploads) are checked where they are read.
      if (Buffer.isBuffer(value) || (value && typeof (value as { pipe?: unknown }).pipe === 'function'))
        continue
      const at = findNul(value)
      if (at) {
        const message = `must not contain a NUL character${part === 'body' ? '' : ` (in ${part})`}`
        return done(errors.field(at.replaceAll('\u0000', '\\0'), message))
      }
    }
    done()
  })
}
