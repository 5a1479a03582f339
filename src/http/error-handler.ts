// The one place where failures become the error envelope: AppErrors, Fastify's validation and
// content errors, PostgreSQL constraint errors, unknown routes, and anything unexpected (500 with
// no internals; logged with the request id).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type ErrorCode, type FieldError } from './errors.ts'

function send(
  reply: FastifyReply,
  status: number,
  code: ErrorCode | string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ status: 'error', message, data: { code, ...extra } })
}

function fieldErrors(err: FastifyError): FieldError[] {
  const part = err.validationContext ?? 'body'
  return (err.validation ?? []).map((v) => {
    let path = v.instancePath || ''
    const params = v.params as Record<string, unknown>
    if (v.keyword === 'required' && typeof params.missingProperty === 'string')
      path += `/${params.missingProperty}`
    if (v.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      path += `/${params.additionalProperty}`
      return { path: path || '/', message: `unknown field in ${part}` }
    }
    return {
      path: path || '/',
      message: `${v.message ?? 'invalid'}${part === 'body' ? '' : ` (in ${part})`}`,
    }
  })
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler(
    (err: FastifyError & { details?: unknown }, request: FastifyRequest, reply: FastifyReply) => {
      if (err instanceof AppError) {
        if (err.code === 'RATE_LIMITED' && typeof err.details.retryAfter === 'number') {
          reply.header('retry-after', String(err.details.retryAfter))
        }
        return send(reply, err.statusCode, err.code, err.message, err.details)
      }
      if (err.validation) {
        const errs = fieldErrors(err)
        return send(
          reply,
          400,
          'VALIDATION_ERROR',
          `Invalid request: ${errs[0]?.path ?? ''} ${errs[0]?.message ?? ''}`.trim(),
          {
            errors: errs,
          },
        )
      }
      const pgCode = (err as unknown as { code?: string }).code
      switch (pgCode) {
        case 'FST_ERR_CTP_INVALID_JSON_BODY':
        case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
          return send(reply, 400, 'VALIDATION_ERROR', 'The body is not valid JSON', {
            errors: [{ path: '/', message: 'malformed JSON' }],
          })
        case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        case 'FST_ERR_CTP_INVALID_TYPE':
          return send(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type; send application/json')
        case 'FST_ERR_CTP_BODY_TOO_LARGE':
        case 'FST_REQ_FILE_TOO_LARGE':
          return send(reply, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large')
        case '23505':
          return send(reply, 409, 'CONFLICT', 'This record already exists')
        case '23514':
          return send(reply, 422, 'BUSINESS_RULE', 'The change breaks a business rule')
        case '22P02':
        case '22003':
          return send(reply, 400, 'VALIDATION_ERROR', 'A value is out of range or malformed')
      }
      // Fastify's own 4xx errors (bad URL encoding, unsupported method, ...).
      if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
        return send(
          reply,
          err.statusCode,
          err.statusCode === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR',
          err.message,
        )
      }
      request.log.error({ err }, 'unhandled error')
      return send(reply, 500, 'INTERNAL', `Internal error; quote request id ${request.id} when reporting it`)
    },
  )

  app.setNotFoundHandler((request, reply) =>
    send(reply, 404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  )
}
