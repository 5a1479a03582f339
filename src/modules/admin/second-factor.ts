// An admin clears another account's second factor (a lost phone, a passkey to rotate): its
// authenticator app, its passkeys, or both. In one transaction with its audit row, every session of
// the account is revoked (its admin step-ups with them), so whoever holds the lost device or a
// signed-in browser is out; the operator signs in again and sets up a new factor at the console.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { AccountModeration, AccountSecurityService } from '../account/types.ts'
import type { AdminAccess } from './access.ts'
import type { AdminActor, AdminAudit } from './audit.ts'
import { passkeysRepo } from './passkeys-repo.ts'

export type SecondFactorKind = 'totp' | 'passkeys'

export class AdminSecondFactors {
  constructor(
    private readonly deps: {
      db: Db
      moderation: AccountModeration
      access: AdminAccess
      audit: AdminAudit
      security: Pick<AccountSecurityService, 'clearTwoFa'>
      /** revokes every session of one account (AuthService.revokeSessions) */
      revokeSessions: (tx: Tx, userId: string) => Promise<void>
    },
  ) {}

  async reset(actor: AdminActor, userId: string, factors: readonly SecondFactorKind[], reason: string) {
    if (userId === actor.userId)
      throw errors.named(
        'OWN_ACCOUNT_REFUSED',
        'An admin does not clear their own second factor: ask another admin',
      )
    return this.deps.db.transaction().execute(async (tx) => {
      const target = await this.deps.moderation.get(tx, userId)
      if (!target) throw errors.notFound('user')
      const totpCleared = factors.includes('totp') ? await this.deps.security.clearTwoFa(tx, userId) : false
      const passkeysRemoved = factors.includes('passkeys') ? await passkeysRepo.removeAllOf(tx, userId) : 0
      if (!totpCleared && passkeysRemoved === 0)
        throw errors.named(
          'NO_SECOND_FACTOR',
          `The account has no ${factors.map((f) => (f === 'totp' ? 'authenticator app' : 'passkey')).join(' and no ')} to clear`,
        )
      await this.deps.access.dropElevationsOf(tx, userId)
      await this.deps.revokeSessions(tx, userId)
      await this.deps.audit.record(tx, actor, {
        action: 'user.second-factor.reset',
        targetType: 'user',
        targetId: userId,
        reason,
        details: { factors, totpCleared, passkeysRemoved },
      })
      return { userId, totpCleared, passkeysRemoved, sessionsEnded: true }
    })
  }
}
