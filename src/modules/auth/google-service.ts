// Google sign-in (OpenID Connect, authorization code with PKCE): a single-use state with its PKCE
// verifier and nonce kept server-side, the code redeemed at the provider, and the verified email
// signed in to the account linked to the identity, linked to the account holding that email, or
// given a new account.
import { createHash } from 'node:crypto'
import * as oidc from 'openid-client'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AccountService } from '../account/types.ts'
import type { OidcClaims, OidcProviderClient } from './google-oidc.ts'
import { googleRepo } from './google-repo.ts'
import { authRepo } from './repo.ts'
import type { AuthService, RequestMeta, TwoFaChallenge } from './service.ts'
import { suspended } from './sessions.ts'

/** How long a state (and its PKCE verifier and nonce) can be presented: one sign-in at the provider. */
export const STATE_TTL_MS = 10 * 60_000
/** Used and expired states are deleted this long after they expire. */
const STATE_KEEP_MS = 60 * 60_000

export interface GoogleSignIn {
  token: string
  token_type: 'jwt'
  expiresIn: number
  isVerified: true
  /** the provider's `zoneinfo` claim, when it gives one */
  timeZone?: string
  type: 'sign_in' | 'sign_up'
}

export type GoogleValidateResult =
  | { kind: 'session'; data: GoogleSignIn }
  | { kind: 'two_fa'; data: TwoFaChallenge }

type User = NonNullable<Awaited<ReturnType<typeof googleRepo.findLiveUserByEmail>>>

const hashState = (state: string) => createHash('sha256').update(state).digest('hex')

const NOT_CONFIGURED =
  'Google sign-in is not configured on this server: set GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET and GOOGLE_REDIRECT_URL (and OIDC_ISSUER_URL for a provider other than Google)'

export class GoogleService {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      log: Logger
      auth: AuthService
      accounts: AccountService
      /** the provider client; none when Google sign-in is not configured */
      provider: OidcProviderClient | undefined
    },
  ) {}

  #provider(): OidcProviderClient {
    if (!this.deps.provider) throw errors.unavailable(NOT_CONFIGURED)
    return this.deps.provider
  }

  /** A new authorization request: the URL to send the browser to and its single-use state. */
  async generateState(): Promise<{ googleAuthUrl: string; state: string }> {
    const provider = this.#provider()
    const state = oidc.randomState()
    const nonce = oidc.randomNonce()
    const codeVerifier = oidc.randomPKCECodeVerifier()
    const codeChallenge = await oidc.calculatePKCECodeChallenge(codeVerifier)
    // The provider's discovery document may be fetched here: before any database write.
    const googleAuthUrl = await provider.authorizationUrl({ state, nonce, codeChallenge })
    const now = this.deps.clock.now()
    await googleRepo.insertState(this.deps.db, {
      stateHash: hashState(state),
      codeVerifier,
      nonce,
      now,
      expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    })
    await googleRepo.deleteExpiredStates(this.deps.db, new Date(now.getTime() - STATE_KEEP_MS))
    return { googleAuthUrl, state }
  }

  /**
   * The browser came back with `code` and `state`: the state is used up first (so neither it nor
   * the code works twice), the code is redeemed outside any transaction, and the account is found,
   * linked or created in one transaction with the session.
   */
  async validate(
    input: { state: string; code: string; iss?: string | undefined },
    meta: RequestMeta,
  ): Promise<GoogleValidateResult> {
    const provider = this.#provider()
    const pending = await googleRepo.takeState(this.deps.db, hashState(input.state), this.deps.clock.now())
    if (!pending)
      throw errors.named(
        'OAUTH_STATE_INVALID',
        'This sign-in state is unknown, expired or already used; start Google sign-in again',
      )
    const claims = await provider.redeem({
      code: input.code,
      state: input.state,
      ...(input.iss === undefined ? {} : { iss: input.iss }),
      codeVerifier: pending.codeVerifier,
      nonce: pending.nonce,
    })
    if (!claims.email || !claims.emailVerified)
      throw errors.named(
        'OAUTH_EMAIL_NOT_VERIFIED',
        claims.email
          ? 'The Google account’s email is not verified; verify it with Google first'
          : 'The sign-in provider gave no email for this account',
      )
    const email = claims.email

    const outcome = await this.deps.db.transaction().execute(async (tx) => {
      await googleRepo.lock(tx, `oidc:${claims.issuer}:${claims.subject}`)
      await googleRepo.lock(tx, `oidc-email:${email}`)
      const now = this.deps.clock.now()
      let user: User | undefined = await googleRepo.findLinkedUser(tx, claims.issuer, claims.subject)
      let type: GoogleSignIn['type'] = 'sign_in'
      if (user) {
        await googleRepo.touch(tx, { issuer: claims.issuer, subject: claims.subject, email, now })
      } else {
        user = await googleRepo.findLiveUserByEmail(tx, email)
        if (user && !user.emailVerified)
          // Linking would hand the account, and whoever set its password, to the email's owner
          // before the account proved it holds that email.
          throw errors.named(
            'OAUTH_ACCOUNT_NOT_VERIFIED',
            'An account with this email exists but has not verified it; verify the email with /v1/auth/account/verify, then sign in with Google',
          )
        if (!user) {
          user = await this.#createAccount(tx, claims, email, now)
          type = 'sign_up'
          await authRepo.audit(tx, user.id, 'google.account_created', meta.ip, { issuer: claims.issuer })
        } else {
          await authRepo.audit(tx, user.id, 'google.linked', meta.ip, { issuer: claims.issuer })
        }
        await googleRepo.link(tx, {
          issuer: claims.issuer,
          subject: claims.subject,
          userId: user.id,
          email,
          now,
        })
      }
      if (user.suspendedAt) throw suspended()
      if (user.twoFaEnabled) return { kind: 'two_fa_pending' as const, user }
      const token = await this.deps.auth.issueSession(user.id, meta, tx)
      const data: GoogleSignIn = {
        ...token,
        token_type: 'jwt',
        isVerified: true,
        ...(claims.zoneinfo ? { timeZone: claims.zoneinfo } : {}),
        type,
      }
      return { kind: 'session' as const, data }
    })

    if (outcome.kind === 'session') return outcome
    // The second factor is asked after the commit, as for a password login.
    const { user } = outcome
    const challenge = await this.deps.auth.twoFaLogin({
      id: user.id,
      email: user.email ?? email,
      firstName: user.firstName,
      twoFaType: user.twoFaType,
    })
    return { kind: 'two_fa', data: challenge }
  }

  async #createAccount(tx: Tx, claims: OidcClaims, email: string, now: Date): Promise<User> {
    const [first, ...rest] = (claims.name ?? '').split(/\s+/).filter(Boolean)
    const firstName = (claims.givenName ?? first ?? email.split('@')[0]!).slice(0, 100)
    const lastName = (claims.familyName ?? rest.join(' ')).slice(0, 100)
    const created = await this.deps.accounts.createUser(tx, {
      email,
      firstName,
      lastName,
      passwordHash: null,
      accountType: 'google',
    })
    // The provider verified the email: the account starts verified and active.
    await authRepo.markEmailVerified(tx, created.id, now)
    return {
      id: created.id,
      email,
      firstName,
      emailVerified: true,
      twoFaEnabled: false,
      twoFaType: '',
      suspendedAt: null,
    }
  }
}
