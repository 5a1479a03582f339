// A real OpenID provider for the Google sign-in tests: oidc-provider on 127.0.0.1 (ephemeral port)
// with the service's client and a second client, people whose claims a test sets, and a browser
// stand-in that follows the authorization request through the provider's login and consent pages
// (its development interactions) over HTTP, cookies kept, to the redirect carrying code and state.
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'

export const REDIRECT_URL = 'http://127.0.0.1:5173/auth/google/callback'
export const CLIENT_ID = 'workpay-web'
export const CLIENT_SECRET = 'workpay-web-secret-0123456789abcdef'
export const OTHER_CLIENT_ID = 'another-app'
export const OTHER_CLIENT_SECRET = 'another-app-secret-0123456789abcdef'

export interface Person {
  email?: string
  email_verified?: boolean
  given_name?: string
  family_name?: string
  name?: string
  zoneinfo?: string
}

export interface TestProvider {
  issuer: string
  provider: Provider
  /** the people who can sign in, by their subject (`sub`) */
  people: Map<string, Person>
  /** the env that points the service at this provider */
  env: Record<string, string>
  /**
   * When set, the next answer of the token endpoint carries this ID token instead of its own (a
   * token another client of the provider was issued).
   */
  substituteIdToken: string | undefined
  /** Signs `sub` in at the provider from `authUrl` and answers the redirect's parameters. */
  authorize(authUrl: string, sub: string): Promise<URLSearchParams>
  close(): Promise<void>
}

export async function startProvider(): Promise<TestProvider> {
  const server: Server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', use: 'sig', alg: 'RS256' }
  const people = new Map<string, Person>()
  const client = (client_id: string, client_secret: string) => ({
    client_id,
    client_secret,
    redirect_uris: [REDIRECT_URL],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  })
  const provider = new Provider(issuer, {
    clients: [client(CLIENT_ID, CLIENT_SECRET), client(OTHER_CLIENT_ID, OTHER_CLIENT_SECRET)],
    jwks: { keys: [jwk] },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: true } },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    // Scope claims in the ID token, as Google puts them there.
    conformIdTokenClaims: false,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'given_name', 'family_name', 'zoneinfo'],
    },
    findAccount: async (_ctx: unknown, sub: string) => {
      const person = people.get(sub)
      if (!person) return undefined
      return { accountId: sub, claims: async () => ({ sub, ...person }) }
    },
  })
  const state: TestProvider = {
    issuer,
    provider,
    people,
    env: {
      GOOGLE_CLIENT_ID: CLIENT_ID,
      GOOGLE_CLIENT_SECRET: CLIENT_SECRET,
      GOOGLE_REDIRECT_URL: REDIRECT_URL,
      OIDC_ISSUER_URL: issuer,
    },
    substituteIdToken: undefined,
    authorize: (authUrl, sub) => authorize(issuer, authUrl, sub),
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
  provider.use(async (ctx, next) => {
    await next()
    const body = ctx.body as { id_token?: string } | undefined
    if (ctx.path === '/token' && body?.id_token && state.substituteIdToken) {
      body.id_token = state.substituteIdToken
      state.substituteIdToken = undefined
    }
  })
  server.on('request', provider.callback())
  return state
}

/** The browser: follows redirects with a cookie jar, submitting the login and consent forms. */
async function authorize(issuer: string, authUrl: string, sub: string): Promise<URLSearchParams> {
  const jar = new Map<string, string>()
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair!.indexOf('=')
      jar.set(pair!.slice(0, i), pair!.slice(i + 1))
    }
  }
  let url = authUrl
  let init: RequestInit = {}
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(REDIRECT_URL)) return new URL(url).searchParams
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: cookieHeader() },
    })
    keep(res)
    init = {}
    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      url = new URL(location, url).toString()
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`provider answered ${res.status}: ${html.slice(0, 500)}`)
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1]
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1]
    if (!action || !prompt) throw new Error(`no interaction form at ${url}: ${html.slice(0, 500)}`)
    const form = new URLSearchParams({ prompt })
    if (prompt === 'login') {
      form.set('login', sub)
      form.set('password', 'any')
    }
    url = new URL(action.replace(/&amp;/g, '&'), issuer).toString()
    init = {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }
  }
  throw new Error('the authorization did not reach the redirect URI')
}
