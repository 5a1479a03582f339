// Operators' passkeys (WebAuthn, through @simplewebauthn/server): an operator registers passkeys
// from an unlocked session (or, for the first one, by proving the authenticator app's code), lists
// and removes them, and unlocks the admin session with one instead of the authenticator code. Each
// ceremony answers a challenge the service issued to this session: single-use, 5 minutes, and of
// its own purpose. The signature counter must move forward at every use (a cloned authenticator is
// refused). The relying party (RP ID, origin) comes from the configuration (config-webauthn.ts).
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import type { WebAuthnConfig } from '../../config-webauthn.ts'
import type { Db, Tx } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { AccountSecurityService } from '../account/types.ts'
import type { AdminAccess } from './access.ts'
import type { AdminActor, AdminAudit } from './audit.ts'
import { passkeysRepo } from './passkeys-repo.ts'

/** How long a ceremony's challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60_000

export interface PasskeyView {
  id: string
  name: string
  deviceType: string
  backedUp: boolean
  transports: string[]
  createdAt: Date
  lastUsedAt: Date | null
}

const view = (p: PasskeyView): PasskeyView => ({
  id: p.id,
  name: p.name,
  deviceType: p.deviceType,
  backedUp: p.backedUp,
  transports: p.transports,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
})

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')

/** The challenge a browser signed, read from its clientDataJSON (base64url JSON). */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string {
  try {
    const raw = response.response?.clientDataJSON
    const data = JSON.parse(Buffer.from(String(raw), 'base64url').toString('utf8')) as { challenge?: unknown }
    if (typeof data.challenge === 'string' && data.challenge.length > 0) return data.challenge
  } catch {}
  throw errors.named('PASSKEY_INVALID', 'The passkey answer carries no readable client data')
}

const staleChallenge = () =>
  errors.named(
    'PASSKEY_CHALLENGE_INVALID',
    'This passkey answer is not for a challenge of this session that is still open: ask for new options',
  )

export class AdminPasskeys {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      webauthn: WebAuthnConfig
      access: AdminAccess
      audit: AdminAudit
      security: Pick<AccountSecurityService, 'verifySensitiveCode'>
    },
  ) {}

  /** The operator's own passkeys (an unlocked session). */
  async list(auth: AuthContext): Promise<PasskeyView[]> {
    await this.deps.access.requireElevated(auth, 'adminPasskeys')
    return (await passkeysRepo.listOf(this.deps.db, auth.userId)).map(view)
  }

  /**
   * Options for `navigator.credentials.create()`. From an unlocked session; or, for an operator who
   * has no passkey yet, with a current authenticator code (`code`, used up).
   */
  async registrationOptions(actor: AdminActor, code: string | undefined) {
    const auth = { userId: actor.userId, sessionId: actor.sessionId }
    const session = await this.deps.access.status(auth)
    const existing = await passkeysRepo.listOf(this.deps.db, actor.userId)
    const now = this.deps.clock.now()
    const options = await generateRegistrationOptions({
      rpName: this.deps.webauthn.rpName,
      rpID: this.deps.webauthn.rpId,
      userName: session.email ?? actor.userId,
      userID: new TextEncoder().encode(actor.userId),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      timeout: CHALLENGE_TTL_MS,
    })
    const challenge = {
      challenge: options.challenge,
      purpose: 'register' as const,
      userId: actor.userId,
      sessionId: actor.sessionId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
    }
    if (await this.deps.access.isElevated(auth)) {
      await passkeysRepo.addChallenge(this.deps.db, challenge)
      return options
    }
    if (existing.length > 0 || session.secondFactor !== 'totp' || !code)
      throw errors.forbidden(
        existing.length > 0
          ? 'A passkey is added from an unlocked admin session: unlock first (POST /v1/admin/session)'
          : 'Unlock the admin session first, or send the authenticator app’s current code as `code` to add a first passkey',
      )
    await this.deps.security.verifySensitiveCode(actor.userId, code, async (tx: Tx) => {
      await passkeysRepo.addChallenge(tx, challenge)
    })
    return options
  }

  /** Verifies the browser's answer to registration options and keeps the passkey (audited). */
  async register(actor: AdminActor, name: string, response: RegistrationResponseJSON): Promise<PasskeyView> {
    await this.deps.access.requireAdmin(actor)
    const challenge = challengeOf(response)
    const now = this.deps.clock.now()
    const taken = await passkeysRepo.takeChallenge(this.deps.db, {
      challenge,
      purpose: 'register',
      userId: actor.userId,
      sessionId: actor.sessionId,
      now,
    })
    if (!taken) throw staleChallenge()
    let info: Awaited<ReturnType<typeof verifyRegistrationResponse>>['registrationInfo']
    try {
      const r = await verifyRegistrationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.deps.webauthn.origin,
        expectedRPID: this.deps.webauthn.rpId,
        requireUserVerification: true,
      })
      info = r.verified ? r.registrationInfo : undefined
    } catch (err) {
      throw errors.named('PASSKEY_INVALID', `The new passkey does not verify: ${(err as Error).message}`)
    }
    if (!info) throw errors.named('PASSKEY_INVALID', 'The new passkey does not verify')
    const { credential } = info
    const row = {
      id: credential.id,
      userId: actor.userId,
      name,
      publicKey: b64url(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: info.credentialDeviceType,
      backedUp: info.credentialBackedUp,
      createdAt: now,
    }
    await this.deps.db.transaction().execute(async (tx) => {
      await passkeysRepo.insert(tx, row)
      await this.deps.audit.record(tx, actor, {
        action: 'admin.passkey.register',
        targetType: 'passkey',
        targetId: row.id,
        reason: `passkey “${name}” registered`,
        details: { name, deviceType: row.deviceType, backedUp: row.backedUp },
      })
    })
    return view({ ...row, lastUsedAt: null })
  }

  /** Removes one of the operator's own passkeys (an unlocked session; audited with the reason). */
  async remove(actor: AdminActor, id: string, reason: string): Promise<void> {
    await this.deps.access.requireElevated(actor, 'adminRemovePasskey')
    await this.deps.db.transaction().execute(async (tx) => {
      const found = await passkeysRepo.get(tx, id)
      if (!found || found.userId !== actor.userId || !(await passkeysRepo.remove(tx, id, actor.userId)))
        throw errors.notFound('passkey')
      await this.deps.audit.record(tx, actor, {
        action: 'admin.passkey.remove',
        targetType: 'passkey',
        targetId: id,
        reason,
        details: { name: found.name },
      })
    })
  }

  /** Options for `navigator.credentials.get()` to unlock this session with one of the operator's passkeys. */
  async authenticationOptions(auth: AuthContext) {
    await this.deps.access.requireAdmin(auth)
    const mine = await passkeysRepo.listOf(this.deps.db, auth.userId)
    if (mine.length === 0)
      throw errors.named(
        'PASSKEY_NOT_REGISTERED',
        'This operator has no passkey: unlock with the authenticator code, then add one',
      )
    const options = await generateAuthenticationOptions({
      rpID: this.deps.webauthn.rpId,
      allowCredentials: mine.map((p) => ({ id: p.id, transports: p.transports as never })),
      userVerification: 'required',
      timeout: CHALLENGE_TTL_MS,
    })
    const now = this.deps.clock.now()
    await passkeysRepo.addChallenge(this.deps.db, {
      challenge: options.challenge,
      purpose: 'authenticate',
      userId: auth.userId,
      sessionId: auth.sessionId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
    })
    return options
  }

  /** Verifies the browser's passkey answer and elevates the session (audited as the step-up). */
  async authenticate(actor: AdminActor, response: AuthenticationResponseJSON) {
    await this.deps.access.requireAdmin(actor)
    const challenge = challengeOf(response)
    const now = this.deps.clock.now()
    const taken = await passkeysRepo.takeChallenge(this.deps.db, {
      challenge,
      purpose: 'authenticate',
      userId: actor.userId,
      sessionId: actor.sessionId,
      now,
    })
    if (!taken) throw staleChallenge()
    const passkey = await passkeysRepo.get(this.deps.db, String(response.id))
    // (another account's passkey is refused like an unknown one)
    if (!passkey || passkey.userId !== actor.userId)
      throw errors.named('PASSKEY_INVALID', 'This is not a passkey of this account')
    let newCounter: number
    try {
      const r = await verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: this.deps.webauthn.origin,
        expectedRPID: this.deps.webauthn.rpId,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: Number(passkey.counter),
          transports: passkey.transports as never,
        },
        requireUserVerification: true,
      })
      if (!r.verified) throw new Error('the signature does not verify')
      newCounter = r.authenticationInfo.newCounter
    } catch (err) {
      throw errors.named('PASSKEY_INVALID', `The passkey answer does not verify: ${(err as Error).message}`)
    }
    // An authenticator with a counter counts up at every use; a counter that does not is a clone
    // (the library checks it too; both zero means the authenticator keeps no counter).
    const old = Number(passkey.counter)
    if ((old > 0 || newCounter > 0) && newCounter <= old)
      throw errors.named('PASSKEY_INVALID', 'The passkey’s signature counter did not move forward')
    await this.deps.db.transaction().execute(async (tx) => {
      if (!(await passkeysRepo.used(tx, passkey.id, old, newCounter, now)))
        throw errors.named('PASSKEY_INVALID', 'The passkey was used by another request at the same time')
      await this.deps.access.elevateIn(tx, actor, 'passkey')
    })
    return this.deps.access.status(actor)
  }
}
