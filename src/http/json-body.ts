// The JSON body parser: an empty body is no body (clients send `Content-Type: application/json` on
// every call), nesting deeper than MAX_JSON_DEPTH is refused before anything recurses over it, and
// `__proto__` / `constructor.prototype` keys are refused as Fastify's own parser does.
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { errors } from './errors.ts'

export const MAX_JSON_DEPTH = 32

/** The deepest nesting of arrays and objects in a JSON text, scanning it once without parsing. */
export function jsonDepth(text: string, stopAt = Number.POSITIVE_INFINITY): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92 /* \ */) i++
      else if (c === 34 /* " */) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++
      if (depth > max) {
        max = depth
        if (max > stopAt) return max
      }
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--
  }
  return max
}

export function registerJsonBody(app: FastifyInstance) {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim()
    if (text === '') return done(null, undefined)
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
      return done(errors.field('/', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`), undefined)
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }))
    } catch (err) {
      const proto = /forbidden (prototype|constructor)/i.test(String(err))
      done(
        errors.field('/', proto ? 'Object prototype keys are not allowed' : 'The body is not valid JSON'),
        undefined,
      )
    }
  })
}
