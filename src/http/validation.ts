// Request validation. Bodies are checked strictly (no type coercion, unknown fields refused);
// query strings and path parameters are coerced from text, as they can only be text.
import Ajv, { type Options } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'

function makeAjv(opts: Options) {
  const ajv = new Ajv.default({
    allErrors: false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    ...opts,
  })
  addFormats.default(ajv)
  return ajv
}

const strict = makeAjv({ coerceTypes: false })
const coercing = makeAjv({ coerceTypes: 'array' })

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strict : coercing
  return ajv.compile(schema as object) as any
}
