// HTTP for file storage (spec #31–#35, plus deletion and the disk store's downloads).
import multipart from '@fastify/multipart'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifySchemaCompiler } from 'fastify'
import { Type } from 'typebox'
import { caller } from '../../http/auth.ts'
import { bearer, envelope, errorResponses, guardedErrors, IdParams, noAuth, ok } from '../../http/schemas.ts'
import { validatorCompiler } from '../../http/validation.ts'
import { DiskBlobStore } from '../../platform/storage/index.ts'
import { ALLOWED_TYPES } from './content.ts'
import { multipartParts } from './multipart.ts'
import { DownloadParams, DownloadQuery, FileList, FileListQuery, FileRecord, SignedUrl } from './schemas.ts'
import type { FileService, Visibility } from './service.ts'

// The multipart body is read as a stream by the handler; its schema is there for the OpenAPI
// document only, so body validation is skipped on the upload routes.
const multipartValidator: FastifySchemaCompiler<any> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route)

const UploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file (exactly one)' }),
})

export const filesRoutes: FastifyPluginAsyncTypebox<{ files: FileService }> = async (app, { files }) => {
  // Registered in this scope only: no other route accepts multipart bodies.
  await app.register(multipart, { throwFileSizeLimit: false })
  const tags = ['files']
  const allowed = ALLOWED_TYPES.map((t) => t.mime).join(', ')

  const uploadRoute = (visibility: Visibility, url: string, operationId: string, summary: string) =>
    app.post(
      url,
      {
        schema: {
          operationId,
          summary,
          description: `multipart/form-data with exactly one file in the field \`file\`, at most ${files.maxBytes} bytes (413 PAYLOAD_TOO_LARGE above). The type is detected from the content, not taken from the client; allowed: ${allowed} (415 UNSUPPORTED_MEDIA_TYPE otherwise). The file is stored as \`${visibility}/<your id>/<uuid>.<ext>\`; the original name is kept only in \`meta.originalName\`.`,
          tags,
          security: bearer,
          consumes: ['multipart/form-data'],
          body: UploadBody,
          response: {
            200: envelope(FileRecord, 'File uploaded'),
            ...guardedErrors({
              VALIDATION_ERROR:
                'no file, more than one, an empty file, or a malformed or interrupted multipart body',
              PAYLOAD_TOO_LARGE: {
                when: 'the file is over the upload limit',
                message: `The upload is larger than the limit of ${files.maxBytes} bytes`,
                data: { limit: files.maxBytes },
              },
              UNSUPPORTED_MEDIA_TYPE: {
                when: 'the body is not multipart/form-data, or the content is not an allowed type',
                message: 'Send the file as multipart/form-data in the field "file"',
              },
            }),
          },
        },
        validatorCompiler: multipartValidator,
        onRequest: app.authenticate,
      },
      async (req) =>
        ok(
          await files.upload(caller(req).userId, visibility, multipartParts(req, files.maxBytes)),
          'File uploaded',
        ),
    )

  uploadRoute('public', '/v1/upload', 'uploadFile', 'Upload a public file (#31)')
  uploadRoute('private', '/v1/upload/private', 'uploadPrivateFile', 'Upload a private file (#32)')

  const listSchema = {
    summary: 'The caller’s files (#33)',
    description:
      'Newest first. Filters: `type` (MIME type prefix such as `image/`), `visibility` (`public` or `private`). Deleted files are not listed.',
    tags,
    security: bearer,
    querystring: FileListQuery,
    response: { 200: envelope(FileList, 'Files'), ...guardedErrors() },
  }
  app.get(
    '/v1/upload/',
    { schema: { ...listSchema, operationId: 'listFiles' }, onRequest: app.authenticate },
    async (req) => ok(await files.list(caller(req).userId, req.query), 'Files'),
  )

  app.get(
    '/v1/upload/url/:id',
    {
      schema: {
        operationId: 'getFileUrl',
        summary: 'A pre-signed URL of one of the caller’s files, valid 300 seconds (#35)',
        description: 'Only for the caller’s own files; any other id answers 404.',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(SignedUrl, 'Pre-signed URL, valid 300 seconds'),
          ...guardedErrors({
            NOT_FOUND: { when: 'no file of the caller has this id', message: 'File not found' },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await files.signedUrl(caller(req).userId, req.params.id), 'Pre-signed URL, valid 300 seconds'),
  )

  app.get(
    '/v1/upload/:id',
    {
      schema: {
        operationId: 'getFile',
        summary: 'One file record (#34)',
        description:
          'The caller’s own files and other users’ public files; someone else’s private file is 404.',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(FileRecord, 'File'),
          ...guardedErrors({
            NOT_FOUND: {
              when: 'no such file, a deleted one, or someone else’s private file',
              message: 'File not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await files.get(caller(req).userId, req.params.id), 'File'),
  )

  app.delete(
    '/v1/upload/:id',
    {
      schema: {
        operationId: 'deleteFile',
        summary: 'Delete one of the caller’s files',
        description:
          'Marks the record deleted (`status` false, `deletedAt` set), removes the stored object, and stops listing it; its URLs answer 404 from then on. Another user’s public file is 403, a private one 404.',
        tags,
        security: bearer,
        params: IdParams,
        response: {
          200: envelope(FileRecord, 'File deleted'),
          ...guardedErrors({
            FORBIDDEN: { when: 'someone else’s public file', message: 'Only the uploader may delete a file' },
            NOT_FOUND: {
              when: 'no such file, a deleted one, or someone else’s private file',
              message: 'File not found',
            },
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await files.remove(caller(req).userId, req.params.id), 'File deleted'),
  )

  // The disk store's objects are served here; with S3 the URLs point at the object store.
  if (files.store instanceof DiskBlobStore) {
    app.get(
      '/v1/files/:visibility/:owner/:object',
      {
        schema: {
          operationId: 'downloadFile',
          summary: 'Download a stored file (embedded disk store)',
          description:
            'Public files need nothing; private files need the `expires`, `signature` and `kid` query parameters of a URL from GET /v1/upload/url/{id} (403 when missing, wrong or expired; 403 `SIGNING_KEY_UNKNOWN` when `kid` names a key the service no longer accepts, after a rotation of URL_SIGNING_SECRET). Deleted files answer 404.',
          tags,
          security: noAuth,
          params: DownloadParams,
          querystring: DownloadQuery,
          response: {
            200: {
              description: 'the file’s bytes, with its detected type as Content-Type',
              content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
            },
            ...errorResponses({
              FORBIDDEN: {
                when: 'a private file without a valid, unexpired signature',
                message: 'A valid signature is required for this file',
              },
              SIGNING_KEY_UNKNOWN: {
                when: 'the URL names a signing key (`kid`) the service does not accept (rotated out)',
                message: 'This link was signed with a key that is no longer accepted; ask for a new one',
              },
              NOT_FOUND: { when: 'no such file, or a deleted one', message: 'File not found' },
            }),
          },
        },
      },
      async (req, reply) => {
        const { visibility, owner, object } = req.params
        const obj = await files.openDiskObject(visibility, `${visibility}/${owner}/${object}`, req.query)
        reply
          .header('content-type', obj.type)
          .header('content-length', String(obj.size))
          .header('x-content-type-options', 'nosniff')
          // Served from the API's origin: never let a stored file run script there.
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header(
            'cache-control',
            obj.visibility === 'public' ? 'public, max-age=31536000, immutable' : 'private, no-store',
          )
        return reply.send(obj.body)
      },
    )
  }
}
