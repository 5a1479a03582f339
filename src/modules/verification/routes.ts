// HTTP for identity verification as the public SDK calls it (`UserVerificationModule`), and Veriff's
// decision webhook.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import secureJson from 'secure-json-parse'
import { caller } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import { bearer, envelope, errorResponses, guardedErrors, noAuth, ok } from '../../http/schemas.ts'
import {
  Attempts,
  CreateSessionBody,
  CreateSessionResponse,
  DecisionRecorded,
  MediaBody,
  MediaResponse,
  VeriffDecision,
  Verification,
  VerificationList,
} from './schemas.ts'
import type { VerificationService } from './service.ts'
import type { VeriffWebhook } from './webhook.ts'

const tags = ['identity verification']
const NO_SESSION = {
  when: 'the caller has no verification session in progress',
  message: 'Verification session not found',
}
const NOT_OPEN = {
  when: 'the session is submitted, decided or deleted and takes no more images or changes',
  message: 'This verification session no longer takes images or changes',
}

export const verificationRoutes: FastifyPluginAsyncTypebox<{
  verification: VerificationService
  /** the largest media body: the image's base64 text and a little JSON around it */
  mediaBodyLimit: number
}> = async (app, { verification, mediaBodyLimit }) => {
  app.post(
    '/v1/user-verification/veriff/session/new',
    {
      schema: {
        operationId: 'createVerificationSession',
        summary: 'Starts an identity verification session (the SDK’s userVerification.createSession)',
        description:
          'With the operator review (the default) the session waits for its images and then for an operator; with Veriff (VERIFF_API_KEY set) the session is opened at Veriff and `verification.url` is its hosted flow. The profile’s `kycStatus` becomes `pending`. One session at a time; at most VERIFICATION_MAX_ATTEMPTS per account.',
        tags,
        security: bearer,
        body: CreateSessionBody,
        response: {
          200: envelope(CreateSessionResponse, 'Verification session created'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or the date of birth is not a real date in the past',
            VERIFICATION_IN_PROGRESS: {
              when: 'the caller has a session in progress, or is verified already',
              message: 'You have a verification session in progress; send its images or delete it first',
            },
            VERIFICATION_ATTEMPTS_EXHAUSTED: 'the caller started VERIFICATION_MAX_ATTEMPTS sessions already',
            IDENTITY_PROVIDER_UNAVAILABLE: 'Veriff did not answer or refused the session',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) =>
      ok(await verification.createSession(caller(req).userId, req.body), 'Verification session created'),
  )

  app.post(
    '/v1/user-verification/veriff/session/media',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        operationId: 'sendVerificationMedia',
        summary: 'Sends one image of the session in progress (the SDK’s userVerification.sendSessionMedia)',
        description:
          'The image (base64 or a data URL in `file.content`) is kept as a private file of the caller’s. Once the face and the document’s front (and back, except for a passport) are in, the session is `submitted`: with the operator review it waits for an operator, with Veriff it is submitted to Veriff.',
        tags,
        security: bearer,
        body: MediaBody,
        response: {
          200: envelope(MediaResponse, 'Image received'),
          ...guardedErrors({
            VALIDATION_ERROR: 'a field fails its schema, or `file.content` is not base64',
            NOT_FOUND: NO_SESSION,
            VERIFICATION_NOT_OPEN: NOT_OPEN,
            PAYLOAD_TOO_LARGE: 'the image is larger than VERIFICATION_MEDIA_MAX_BYTES',
            UNSUPPORTED_MEDIA_TYPE: 'the bytes are not a JPEG, PNG or WebP image',
            IDENTITY_PROVIDER_UNAVAILABLE: 'Veriff did not answer or refused the image',
          }),
        },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await verification.sendMedia(caller(req).userId, req.body), 'Image received'),
  )

  app.get(
    '/v1/user-verification/veriff/session/attempts',
    {
      schema: {
        operationId: 'verificationAttempts',
        summary:
          'Every verification session the caller started (the SDK’s userVerification.getSessionAttempts)',
        tags,
        security: bearer,
        response: { 200: envelope(Attempts, 'Verification attempts'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await verification.attempts(caller(req).userId), 'Verification attempts'),
  )

  app.get(
    '/v1/user-verification/user',
    {
      schema: {
        operationId: 'userVerifications',
        summary: 'The caller’s verifications (the SDK’s userVerification.getUserVerifications)',
        tags,
        security: bearer,
        response: { 200: envelope(VerificationList, 'Verifications'), ...guardedErrors() },
      },
      onRequest: app.authenticate,
    },
    async (req) => ok(await verification.list(caller(req).userId), 'Verifications'),
  )

  for (const method of ['POST', 'DELETE'] as const)
    app.route({
      method,
      url: '/v1/user-verification/veriff/session/delete',
      schema: {
        operationId: method === 'POST' ? 'deleteVerificationSession' : 'deleteVerificationSessionByDelete',
        summary: `Deletes the caller’s session in progress and its images (${method}; the SDK names the path, both methods work)`,
        description:
          'Only before a decision: with the operator review while it is created or submitted, with Veriff while it still takes images. The session stays in the attempts as `abandoned` (and counts as one).',
        tags,
        security: bearer,
        response: {
          200: envelope(Verification, 'Verification session deleted'),
          ...guardedErrors({ NOT_FOUND: NO_SESSION, VERIFICATION_NOT_OPEN: NOT_OPEN }),
        },
      },
      onRequest: app.authenticate,
      handler: async (req) =>
        ok(await verification.deleteSession(caller(req).userId), 'Verification session deleted'),
    })
}

/** Veriff's decision webhook; its own JSON parser keeps the raw body the signature is over. */
export const veriffWebhookRoutes: FastifyPluginAsyncTypebox<{ webhook: VeriffWebhook }> = async (
  app,
  { webhook },
) => {
  const raw = new WeakMap<FastifyRequest, string>()
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    raw.set(req, body as string)
    try {
      done(
        null,
        secureJson.parse(body as string, undefined, { protoAction: 'error', constructorAction: 'error' }),
      )
    } catch {
      done(errors.field('/', 'The body is not valid JSON'), undefined)
    }
  })
  const header = (req: FastifyRequest, name: string) => {
    const v = req.headers[name]
    return Array.isArray(v) ? v[0] : v
  }

  app.post(
    '/v1/user-verification/veriff/decision',
    {
      schema: {
        operationId: 'veriffDecisionWebhook',
        summary: 'Veriff’s decision webhook (configure this URL as the integration’s decision webhook)',
        description:
          'Signed by Veriff: `X-AUTH-CLIENT` is the API key and `X-HMAC-SIGNATURE` the hex HMAC-SHA256 of the raw body with the shared secret (checked before anything else). The session is found by `verification.id` (and `vendorData`); the decision sets the profile’s `kyc`/`kycStatus` and notifies the user. The same decision sent again answers 200 and changes nothing.',
        tags,
        security: noAuth,
        body: VeriffDecision,
        response: {
          200: envelope(DecisionRecorded, 'Decision recorded'),
          ...errorResponses({
            INVALID_SIGNATURE: {
              when: 'X-AUTH-CLIENT is not the API key, or X-HMAC-SIGNATURE does not sign the body',
              message: 'X-HMAC-SIGNATURE is missing or does not sign this body',
            },
            NOT_FOUND: 'Veriff is not configured, or no session has this id (and vendorData)',
            VERIFICATION_NOT_OPEN: 'the session was decided otherwise before, or deleted',
          }),
        },
      },
      preValidation: async (req) => {
        webhook.checkSignature(raw.get(req) ?? '', {
          client: header(req, 'x-auth-client'),
          signature: header(req, 'x-hmac-signature'),
        })
      },
    },
    async (req) => ok(await webhook.apply(req.body), 'Decision recorded'),
  )
}
