// HTTP for wallet sign-in (spec #10–#12).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Hex } from 'viem'
import type { Config } from '../../config.ts'
import { requestMeta } from '../../http/auth.ts'
import { authLimiter } from '../../http/rate-limit.ts'
import { envelope, errorResponses, noAuth, ok } from '../../http/schemas.ts'
import { TwoFaChallengeData } from './schemas.ts'
import {
  Web3OnboardBody,
  Web3OnboardData,
  Web3PendingData,
  Web3RequestBody,
  Web3RequestData,
  Web3SessionData,
  Web3ValidateBody,
} from './web3-schemas.ts'
import type { Web3Service } from './web3-service.ts'

const field = (name: string) => (req: { body: unknown }) => {
  const value = (req.body as Record<string, unknown> | undefined)?.[name]
  return typeof value === 'string' ? value : undefined
}

export const web3Routes: FastifyPluginAsyncTypebox<{ web3: Web3Service; config: Config }> = async (
  app,
  { web3, config },
) => {
  const tags = ['auth']
  const security = noAuth
  const RATE_LIMITED =
    'too many requests from this IP address or for this address, token or email; see `Retry-After`'

  app.post(
    '/v1/auth/web3/request',
    {
      schema: {
        operationId: 'web3Request',
        summary: 'Get a message to sign with the wallet (#10)',
        description:
          'Returns an EIP-4361 (Sign-In with Ethereum) message for the address: domain and URI of this service, the configured chain id, the statement "Approve this request to sign in to WorkPay.", a random single-use nonce, Issued At and an Expiration Time 15 minutes later. Sign it with personal_sign (EIP-191) and send the signature with the tempToken to /v1/auth/web3/validate. A mixed-case address must carry a valid EIP-55 checksum (400 otherwise).',
        tags,
        security,
        body: Web3RequestBody,
        response: {
          200: envelope(Web3RequestData, 'Sign this message with your wallet'),
          ...errorResponses({
            VALIDATION_ERROR: 'not an address, or a mixed-case address with a wrong EIP-55 checksum',
            RATE_LIMITED,
          }),
        },
      },
      // Per IP and per address.
      preHandler: authLimiter(app, config.rateLimit, 'web3-request', field('account')),
    },
    async (req) => ok(await web3.request(req.body.account), 'Sign this message with your wallet'),
  )

  app.post(
    '/v1/auth/web3/validate',
    {
      schema: {
        operationId: 'web3Validate',
        summary: 'Submit the signed message (#11)',
        description:
          'Checks the signature against the exact message issued with the tempToken (EIP-191; EIP-1271 for a contract wallet on the configured chain). The message and its tempToken work once and for 15 minutes. A new address gets an account and 202 with a `web3_onboard` tempToken for /v1/auth/web3/onboard; so does an account that has not finished onboarding or email verification. An onboarded, verified account gets 200 with the permanent token (or, with two-factor on, the same challenge as login). A wrong signature is 401 INVALID_CREDENTIALS; a used, expired or wrong-purpose tempToken is 401 UNAUTHENTICATED.',
        tags,
        security,
        body: Web3ValidateBody,
        response: {
          200: envelope(Type.Union([Web3SessionData, TwoFaChallengeData]), 'Signed in'),
          202: envelope(
            Web3PendingData,
            'Signature verified; onboarding must be completed with POST /v1/auth/web3/onboard',
          ),
          ...errorResponses({
            FORBIDDEN: { when: 'the account is suspended', message: 'This account is suspended' },
            INVALID_CREDENTIALS: 'the signature is not the address’s signature of the issued message',
            UNAUTHENTICATED:
              'the temporary token is malformed, expired, already used, or belongs to another step',
            RATE_LIMITED,
            UNAVAILABLE:
              'a contract wallet’s signature (EIP-1271) could not be checked: the chain is unreachable',
          }),
        },
      },
      // Per IP and per tempToken (the body names no address).
      preHandler: authLimiter(app, config.rateLimit, 'web3-validate', field('tempToken')),
    },
    async (req, reply) => {
      const result = await web3.validate(req.body.signedMessage as Hex, req.body.tempToken, requestMeta(req))
      switch (result.kind) {
        case 'session':
          return reply.code(200).send(ok(result.data, 'Signed in'))
        case 'two_fa':
          return reply.code(200).send(ok(result.data, 'Two-factor code required'))
        case 'onboard':
          return reply
            .code(202)
            .send(
              ok(
                result.data,
                result.onboarded
                  ? 'Signature verified; verify your email to complete onboarding (POST /v1/auth/web3/onboard sends a new code)'
                  : 'Signature verified; onboarding must be completed with POST /v1/auth/web3/onboard',
              ),
            )
      }
    },
  )

  app.post(
    '/v1/auth/web3/onboard',
    {
      schema: {
        operationId: 'web3Onboard',
        summary: 'Complete a wallet account with names and email (#12)',
        description:
          'Needs the `web3_onboard` tempToken from /v1/auth/web3/validate. Stores the names and the email (409 CONFLICT when another account has it), marks the account onboarded and emails a 6-digit code. The returned tempToken (`verify_email`) and that code go to /v1/auth/account/verify, which answers the permanent token.',
        tags,
        security,
        body: Web3OnboardBody,
        response: {
          200: envelope(
            Web3OnboardData,
            'Onboarding saved; a verification code was sent to your email. Verify it with /v1/auth/account/verify',
          ),
          ...errorResponses({
            UNAUTHENTICATED: 'the temporary token is not a live `web3_onboard` token',
            CONFLICT: { when: 'another account has the email', message: 'This email is already registered' },
            ONBOARDING_ALREADY_COMPLETED: 'the account has completed onboarding already',
            RATE_LIMITED,
          }),
        },
      },
      // Per IP and per email.
      preHandler: authLimiter(app, config.rateLimit, 'web3-onboard', field('email')),
    },
    async (req) =>
      ok(
        await web3.onboard(req.body),
        'Onboarding saved; a verification code was sent to your email. Verify it with /v1/auth/account/verify',
      ),
  )
}
