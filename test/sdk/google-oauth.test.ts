// `sdk.auth.googleOAuthGenerateState` and `googleOAuthValidateState` against the real service over
// a socket, signed in at a real OpenID provider (oidc-provider on loopback) standing in for Google:
// the answers have the SDK's GoogleOAuthGenerateDto and GoogleOAuthValidateDto shapes, the token
// works with the rest of the SDK, and refusals and an unconfigured server reach the SDK as named errors.
import { PaktSDK } from '@pakt/sdk'
import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startProvider, type TestProvider } from '../auth/oidc-provider.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { uniqueEmail } from '../helpers/factories.ts'
import { expectError, expectOk, expectShape, type SdkContext, signUp } from './helpers.ts'

/** GoogleOAuthGenerateDto */
const GenerateDto = Type.Object({ googleAuthUrl: Type.String(), state: Type.String() })
/** GoogleOAuthValidateDto (timeZone: string | undefined) */
const ValidateDto = Type.Object({
  token: Type.String(),
  token_type: Type.String(),
  expiresIn: Type.Number(),
  isVerified: Type.Boolean(),
  timeZone: Type.Optional(Type.String()),
  type: Type.Union([Type.Literal('sign_in'), Type.Literal('sign_up')]),
})

async function sdkFor(t: TestApp): Promise<SdkContext> {
  const baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' })
  return { t, sdk: await PaktSDK.init({ baseUrl }), baseUrl }
}

let op: TestProvider
let ctx: SdkContext
beforeAll(async () => {
  // The SDK logs every URL it builds.
  vi.spyOn(console, 'log').mockImplementation(() => {})
  vi.spyOn(console, 'debug').mockImplementation(() => {})
  op = await startProvider()
  ctx = await sdkFor(await createTestApp({ env: op.env }))
})
afterAll(async () => {
  await ctx?.t.close()
  await op?.close()
})

/** A person at the provider signs in through the SDK's two calls; answers the validate answer. */
async function signInWithGoogle(claims: { email: string; email_verified?: boolean }) {
  const sub = `sdk-${claims.email}`
  op.people.set(sub, { email_verified: true, given_name: 'Sdk', family_name: 'Google', ...claims })
  const gen = await ctx.sdk.auth.googleOAuthGenerateState()
  const data = expectOk(gen)
  expectShape(GenerateDto, data, 'GoogleOAuthGenerateDto')
  const redirect = await op.authorize(data.googleAuthUrl, sub)
  expect(redirect.get('state')).toBe(data.state)
  const payload = { state: redirect.get('state')!, code: redirect.get('code')! }
  return { payload, res: await ctx.sdk.auth.googleOAuthValidateState(payload) }
}

describe('sdk.auth.googleOAuthGenerateState / googleOAuthValidateState', () => {
  it('signs a new person up and answers GoogleOAuthValidateDto; the token works with the SDK', async () => {
    const email = uniqueEmail('sdk-google')
    const { res } = await signInWithGoogle({ email })
    const data = expectOk(res)
    expectShape(ValidateDto, data, 'GoogleOAuthValidateDto')
    expect(data).toMatchObject({ token_type: 'jwt', isVerified: true, type: 'sign_up' })
    const me = expectOk(await ctx.sdk.account.getUser(data.token))
    expect(me.email).toBe(email)
  })

  it('signs an existing SDK user in to their account (type sign_in)', async () => {
    const user = await signUp(ctx)
    const { res } = await signInWithGoogle({ email: user.email })
    const data = expectOk(res)
    expectShape(ValidateDto, data, 'GoogleOAuthValidateDto')
    expect(data.type).toBe('sign_in')
    const me = expectOk(await ctx.sdk.account.getUser(data.token))
    expect(me._id).toBe(user.id)
  })

  it('answers a replayed state 400 OAUTH_STATE_INVALID and an unverified email 403 OAUTH_EMAIL_NOT_VERIFIED', async () => {
    const { payload, res } = await signInWithGoogle({ email: uniqueEmail('sdk-replay') })
    expectOk(res)
    expectError(await ctx.sdk.auth.googleOAuthValidateState(payload), 400, 'OAUTH_STATE_INVALID')
    const unverified = await signInWithGoogle({ email: uniqueEmail('sdk-unverified'), email_verified: false })
    expectError(unverified.res, 403, 'OAUTH_EMAIL_NOT_VERIFIED')
  })

  it('reaches the SDK as 503 UNAVAILABLE naming the variables when the server has no Google sign-in', async () => {
    const bare = await sdkFor(await createTestApp())
    try {
      const gen = await bare.sdk.auth.googleOAuthGenerateState()
      expectError(gen, 503, 'UNAVAILABLE')
      expect(gen.message).toContain('GOOGLE_CLIENT_ID')
      expectError(await bare.sdk.auth.googleOAuthValidateState({ state: 'a', code: 'b' }), 503, 'UNAVAILABLE')
    } finally {
      await bare.t.close()
    }
  })
})
