// Route schemas compiled at their first use. Fastify compiles every route's request validators
// (Ajv) and response serializers (fast-json-stringify) while it starts: for this API's routes,
// most of a second and tens of megabytes before the first request, for routes a local run may
// never call. Outside production (`npm start`, tests) each validator and serializer is compiled
// on the first request that needs it, and kept; production compiles them all at start-up as
// before, so no request there pays for a compilation.
import SerializerSelector from '@fastify/fast-json-stringify-compiler'
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify'

type Validate = ReturnType<FastifySchemaCompiler<any>>

/** A validator compiler whose validators are compiled by `compile` when first called. */
export function lazyValidatorCompiler(compile: FastifySchemaCompiler<any>): FastifySchemaCompiler<any> {
  return (route) => {
    let validate: Validate | undefined
    const lazy: Validate = function (this: unknown, data: unknown) {
      validate ??= compile(route)
      const result = validate.call(this, data)
      // Fastify reads the errors of a failed validation from the function it was given
      lazy.errors = validate.errors
      return result
    }
    return lazy
  }
}

/**
 * Fastify's schema controller with its own serializer compiler (fast-json-stringify, with the
 * shared schemas added by `app.addSchema`) deferred to each serializer's first use.
 */
export function lazySerializers(): NonNullable<FastifyServerOptions['schemaController']> {
  const eager = SerializerSelector()
  return {
    compilersFactory: {
      buildSerializer: (externalSchemas: unknown, options: unknown) => {
        const compile = eager(externalSchemas, options as Parameters<typeof eager>[1])
        return (route: Parameters<typeof compile>[0]) => {
          let serialize: ((doc: unknown) => string) | undefined
          return (doc: unknown) => {
            serialize ??= compile(route)
            return serialize(doc)
          }
        }
      },
    },
  }
}
