// Turns a multipart/form-data request into the parts the file service consumes, with limits
// that keep a request from holding more than one file or many fields, and parser failures
// reported as 400 instead of escaping as internal errors.
import type { FastifyRequest } from 'fastify'
import { AppError, errors } from '../../http/errors.ts'
import type { UploadPart } from './service.ts'

const LIMIT_CODES = new Set(['FST_FILES_LIMIT', 'FST_PARTS_LIMIT', 'FST_FIELDS_LIMIT'])

function parserError(err: unknown): AppError {
  if (err instanceof AppError) return err
  const code = (err as { code?: string })?.code
  if (code && LIMIT_CODES.has(code))
    return errors.field('/file', 'Send exactly one file, in the field "file", and few other fields')
  return errors.validation('The multipart body is malformed or was interrupted')
}

export async function* multipartParts(req: FastifyRequest, maxBytes: number): AsyncGenerator<UploadPart> {
  if (!req.isMultipart())
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as multipart/form-data in the field "file"')
  const parts = req.parts({
    // One byte over the limit is enough for the service to see that the file is too large.
    limits: { fileSize: maxBytes + 1, files: 1, fields: 10, fieldSize: 8 * 1024, parts: 20, headerPairs: 50 },
  })
  let done = false
  try {
    for (;;) {
      let r: IteratorResult<Awaited<ReturnType<typeof parts.next>>['value']>
      try {
        r = await parts.next()
      } catch (err) {
        throw parserError(err)
      }
      if (r.done) {
        done = true
        return
      }
      const part = r.value
      yield part.type === 'file'
        ? { field: part.fieldname, file: { stream: part.file, filename: part.filename } }
        : { field: part.fieldname }
    }
  } finally {
    if (!done) {
      await parts.return?.(undefined).catch(() => {})
      // The upload was refused part-way: read and discard the rest of the body so the client
      // can finish sending and receive the error instead of a reset connection.
      if (!req.raw.complete) {
        req.raw.unpipe()
        req.raw.resume()
      }
    }
  }
}
