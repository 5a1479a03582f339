// An operator who unlocks the console with a passkey proves that passkey before another second
// factor is set up on the account: without this, a stolen access token alone could turn on an
// authenticator app of the thief's, which unlocks the console too.
import type { Db } from '../../db/index.ts'
import type { AuthContext } from '../../http/auth.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import type { TwoFaSetupGate } from '../account/types.ts'
import { passkeysRepo } from './passkeys-repo.ts'
import { adminRepo } from './repo.ts'

/**
 * Refuses a two-factor set-up (#41, #42) on an operator's account that has a passkey unless this
 * session is unlocked with the passkey. An account that is no operator any more (its passkeys
 * unlock nothing) sets up two-factor as any user does.
 */
export function passkeySetupGate(d: {
  db: Db
  clock: Clock
  /** the account's staff role (null: not an operator) */
  staffRole: (ex: Db, userId: string) => Promise<string | null>
}): TwoFaSetupGate {
  return {
    async assertMaySetUp(auth: AuthContext) {
      if ((await passkeysRepo.count(d.db, auth.userId)) === 0) return
      if (!(await d.staffRole(d.db, auth.userId))) return
      const e = await adminRepo.elevation(d.db, auth.sessionId)
      if (e && e.userId === auth.userId && e.method === 'passkey' && e.expiresAt > d.clock.now()) return
      throw errors.named(
        'PASSKEY_UNLOCK_REQUIRED',
        'This account unlocks the console with a passkey: unlock this session with it (POST /v1/admin/session/passkey) before setting up two-factor',
      )
    },
  }
}
