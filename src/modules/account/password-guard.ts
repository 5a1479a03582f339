// The password check of actions a signed-in account confirms with its password (password change,
// deletion, sensitive-action codes, key export, withdrawals, escrow payment). Wrong passwords are
// counted per account across all of them, whatever the client IP, so that a stolen access token is
// not an unlimited oracle for the password (which, with the token, moves money). A password
// confirmed right is kept a few minutes as an HMAC (recent-passwords.ts), so that a run of
// confirmations by one account pays for argon2id once; the limit is checked before it all the same.
import type { Db, Tx } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import { verifyPassword } from '../../platform/crypto/passwords.ts'
import { RecentPasswords } from './recent-passwords.ts'
import { securityRepo } from './security-repo.ts'

/** How long a password confirmed right spares the next confirmations argon2id (recent-passwords.ts). */
export const RECENT_PASSWORD_MS = 5 * 60 * 1000
const recent = new RecentPasswords(RECENT_PASSWORD_MS, 10_000)

/** Wrong passwords per account within the window; the next attempt, right or wrong, is 429. */
export const MAX_WRONG_PASSWORDS = 5
export const WRONG_PASSWORD_WINDOW_MS = 15 * 60 * 1000
/** The audit action of a wrong password; `meta.action` names what it was for. */
export const WRONG_PASSWORD_ACTION = 'password.failed'

export interface PasswordCheck {
  userId: string
  passwordHash: string | null | undefined
  password: string
  /** what the password confirms, e.g. `wallet.export_key` (kept in the audit row) */
  action: string
  ip: string | null
  now: Date
  /** the message of the 401 for a wrong password */
  message?: string
}

/**
 * Answers 401 INVALID_CREDENTIALS for a wrong password and 429 RATE_LIMITED once the account has
 * MAX_WRONG_PASSWORDS wrong ones in the window. The checks of one account run one at a time (a
 * transaction-scoped advisory lock on the account), so concurrent guesses see each other's
 * failures and cannot slip past the limit, while concurrent requests with the right password
 * (several withdrawals at once) all go through.
 */
export async function confirmPassword(db: Db, check: PasswordCheck): Promise<void> {
  return guard(db, check, async (tx, since) => ({
    passwordHash: check.passwordHash,
    failures: await securityRepo.lockPasswordChecks(tx, check.userId, WRONG_PASSWORD_ACTION, since),
  }))
}

/**
 * `confirmPassword` for an account read under the lock itself (one statement fewer): answers
 * whether its two-factor login is on; 401 UNAUTHENTICATED when the account is gone.
 */
export async function confirmAccountPassword(
  db: Db,
  check: Omit<PasswordCheck, 'passwordHash'>,
): Promise<{ twoFaEnabled: boolean }> {
  let twoFaEnabled = false
  await guard(db, check, async (tx, since) => {
    const user = await securityRepo.lockPasswordChecksOf(tx, check.userId, WRONG_PASSWORD_ACTION, since)
    if (!user) throw errors.unauthenticated()
    twoFaEnabled = user.twoFaEnabled
    return user
  })
  return { twoFaEnabled }
}

async function guard(
  db: Db,
  check: Omit<PasswordCheck, 'passwordHash'>,
  /** takes the account's lock; answers its password hash and its wrong passwords since `since` */
  lock: (tx: Tx, since: Date) => Promise<{ passwordHash: string | null | undefined; failures: number }>,
): Promise<void> {
  const windowMs = WRONG_PASSWORD_WINDOW_MS
  const outcome = await db.transaction().execute(async (tx) => {
    const { passwordHash, failures } = await lock(tx, new Date(check.now.getTime() - windowMs))
    if (failures >= MAX_WRONG_PASSWORDS) return 'locked' as const
    if (recent.matches(check.userId, passwordHash, check.password)) return 'ok' as const
    if (await verifyPassword(passwordHash, check.password)) {
      recent.remember(check.userId, passwordHash, check.password)
      return 'ok' as const
    }
    recent.forget(check.userId)
    await securityRepo.audit(tx, {
      userId: check.userId,
      action: WRONG_PASSWORD_ACTION,
      ip: check.ip,
      meta: { action: check.action },
      at: check.now,
    })
    return 'wrong' as const
  })
  if (outcome === 'locked') throw errors.rateLimited(Math.ceil(windowMs / 1000))
  if (outcome === 'wrong') throw errors.invalidCredentials(check.message)
}
