// Permanent sessions: a sessions row and the access token naming it. Used by email login, web3
// sign-in and two-factor login alike.
import { type Db, type Executor, inTransaction } from '../../db/index.ts'
import { errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { authRepo } from './repo.ts'
import type { CachedSession, SessionCache } from './session-cache.ts'
import { EVERY_ACCOUNT } from './session-cache.ts'
import type { TokenObject, TokenService } from './tokens.ts'

export interface RequestMeta {
  ip: string | null
  userAgent: string | null
}

/** A suspended account is refused at every way in (403). */
export const suspended = () => errors.forbidden('This account is suspended')

/**
 * Opens sessions, resolves bearer tokens to live sessions, and revokes them. Every change to what
 * existing sessions may do goes through `changed` (or `revokeAll` / `revokeOne`, which call it),
 * in the changing transaction: with a cache, every API process drops the account's cached sessions
 * at that transaction's commit (see session-cache.ts and docs/architecture.md).
 */
export class SessionIssuer {
  constructor(
    private readonly deps: {
      db: Db
      clock: Clock
      tokens: TokenService
      /** live sessions cached in process; without it every request looks its session up */
      cache?: SessionCache | undefined
    },
  ) {}

  get cache(): SessionCache | undefined {
    return this.deps.cache
  }

  /** Resolves a bearer token to its live session; undefined when invalid, revoked or deleted. */
  readonly resolve = async (bearer: string): Promise<CachedSession | undefined> => {
    const claims = this.deps.tokens.verifyAccess(bearer)
    if (!claims) return
    const cache = this.deps.cache
    const hit = await cache?.lookup(claims.sessionId)
    if (hit) return hit.userId === claims.userId ? hit : undefined
    const epoch = cache?.epoch() ?? 0
    const row = await authRepo.findActiveSession(this.deps.db, claims.sessionId, claims.userId)
    if (row && cache) cache.put(row, epoch)
    return row
  }

  /** Call in the transaction that changes what the account's existing sessions may do. */
  readonly changed = async (ex: Executor, userId: string): Promise<void> => {
    if (this.deps.cache) await this.deps.cache.publish(ex, userId)
  }

  /** Revokes every session of the account but `keep` (when given). */
  readonly revokeAll = (ex: Executor, userId: string, keep?: string): Promise<void> =>
    inTransaction(ex, async (tx) => {
      await this.changed(tx, userId)
      await authRepo.revokeAllSessions(tx, userId, this.deps.clock.now(), keep)
    })

  /**
   * Revokes every session of every account (after a leaked secret, or a restore): every process
   * drops its whole cache at the commit. Answers how many sessions were live.
   */
  readonly revokeEveryone = (ex: Executor): Promise<number> =>
    inTransaction(ex, async (tx) => {
      await this.changed(tx, EVERY_ACCOUNT)
      return authRepo.revokeEverySession(tx, this.deps.clock.now())
    })

  /** Revokes one session of the account (logout). */
  readonly revokeOne = (ex: Executor, userId: string, sessionId: string): Promise<void> =>
    inTransaction(ex, async (tx) => {
      await this.changed(tx, userId)
      await authRepo.revokeSession(tx, sessionId, this.deps.clock.now())
    })

  /** Opens a session for `userId` (in `ex`, the caller's transaction when given). */
  readonly issue = async (
    userId: string,
    meta: RequestMeta,
    ex: Executor = this.deps.db,
  ): Promise<TokenObject> => {
    const sessionId = await authRepo.createSession(ex, userId, meta.ip, meta.userAgent, this.deps.clock.now())
    return this.deps.tokens.access(userId, sessionId)
  }
}
