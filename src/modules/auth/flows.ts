// Multi-step flows: each temporary token is a row of auth_flows with one purpose, an optional
// 6-digit code (kept as a keyed hash naming its key, see platform/crypto/codes.ts), a 15-minute life and an attempt counter. Five wrong codes
// kill the flow. Used by registration, reset, two-factor login, sensitive-action codes and web3.
// Mail can arrive out of order, so a newer code does not end the older ones: a flow accepts its
// newest code and the earlier ones (up to MAX_LIVE_CODES in all) until each one's own expiry.
import type { Config } from '../../config.ts'
import type { Db, Executor, Tx } from '../../db/index.ts'
import { type AppError, errors } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { type CodeHasher, newCode } from '../../platform/crypto/codes.ts'
import type { JobQueue } from '../../platform/jobs/queue.ts'
import { type CodeMailPurpose, codeMail } from '../../platform/mail/templates.ts'
import { authRepo } from './repo.ts'
import { TEMP_TOKEN_TTL_MS, type TempPurpose, type TokenObject, type TokenService } from './tokens.ts'

export const MAX_CODE_ATTEMPTS = 5
/** Codes a flow accepts at once: the newest and the two before it, each until it expires. */
export const MAX_LIVE_CODES = 3

export type FlowRow = NonNullable<Awaited<ReturnType<typeof authRepo.getFlow>>>

/**
 * The attempt rules of every code, checked against a locked flow: used, replaced, expired and dead
 * flows refuse; a wrong code is counted in `tx` (the fifth kills the flow) and that count must be
 * committed even though the request fails. Returns the error to answer, or undefined when the code
 * matches (the caller then marks the flow used).
 */
export async function checkFlowCode(
  tx: Tx,
  flow: FlowRow,
  now: Date,
  matches: () => boolean | Promise<boolean>,
  wrongMessage?: string,
): Promise<AppError | undefined> {
  if (flow.attempts >= MAX_CODE_ATTEMPTS) return errors.tooManyAttempts()
  if (flow.consumedAt) return errors.invalidCode('This code has already been used')
  if (flow.deadAt)
    return errors.invalidCode('A newer request replaced this one; use the code and token of the latest')
  if (flow.expiresAt <= now) return errors.invalidCode('The code has expired; request a new one')
  if (await matches()) return undefined
  const attempts = flow.attempts + 1
  await authRepo.updateFlow(
    tx,
    flow.id,
    attempts >= MAX_CODE_ATTEMPTS ? { attempts, deadAt: now } : { attempts },
  )
  return attempts >= MAX_CODE_ATTEMPTS
    ? errors.tooManyAttempts()
    : errors.invalidCode(wrongMessage ?? `Wrong code; ${MAX_CODE_ATTEMPTS - attempts} attempts left`)
}

/** What a new flow takes over from the open flow it replaces (see FlowService.endOpenFlows). */
export interface Inherited {
  email: string | null
  attempts: number
  codes: Array<{ codeHash: string; expiresAt: Date; replacedAt: Date }>
}

export interface StartFlow {
  purpose: TempPurpose
  userId: string | null
  email?: string | null
  address?: string | null
  nonce?: string | null
  message?: string | null
  /** generate a 6-digit code for this flow */
  withCode?: boolean
  /** the codes and attempts of the flow this one replaces (kept only for the same email) */
  inherit?: Inherited | undefined
}

export class FlowService {
  constructor(
    private readonly deps: {
      db: Db
      tokens: TokenService
      codes: CodeHasher
      clock: Clock
      config: Config
      jobs: JobQueue
    },
  ) {}

  /** The stored form of a code: its keyed hash, naming the key (`<key id>.<hex>`). */
  hashCode(code: string): string {
    return this.deps.codes.hash(code)
  }

  async start(
    ex: Executor,
    input: StartFlow,
  ): Promise<{ flowId: string; tempToken: TokenObject; code?: string }> {
    const now = this.deps.clock.now()
    const expiresAt = new Date(now.getTime() + TEMP_TOKEN_TTL_MS)
    const code = input.withCode ? newCode() : undefined
    const { id } = await authRepo.insertFlow(ex, {
      purpose: input.purpose,
      userId: input.userId,
      email: input.email ?? null,
      address: input.address ?? null,
      nonce: input.nonce ?? null,
      message: input.message ?? null,
      codeHash: code ? this.hashCode(code) : null,
      expiresAt,
      createdAt: now,
    })
    if (code) await this.inherit(ex, id, input.email ?? null, input.inherit)
    const tempToken = await this.deps.tokens.temp(id, input.purpose, expiresAt)
    return { flowId: id, tempToken, ...(code ? { code } : {}) }
  }

  /**
   * Ends the open flows of one purpose of an account before a new one starts (a resend, a new
   * login, a new security code) and returns what the new flow takes over from the newest of them:
   * its codes that are still valid and its wrong attempts, so a late mail still works and asking
   * for a new code does not reset the attempt count.
   */
  async endOpenFlows(ex: Executor, userId: string, purpose: string): Promise<Inherited | undefined> {
    const now = this.deps.clock.now()
    const previous = await authRepo.lockNewestOpenFlow(ex, userId, purpose, now)
    await authRepo.killOpenFlows(ex, userId, purpose, now)
    if (!previous?.codeHash) return
    const earlier = await authRepo.earlierCodes(ex, previous.id, now, MAX_LIVE_CODES - 2)
    return {
      email: previous.email,
      attempts: previous.attempts,
      codes: [{ codeHash: previous.codeHash, expiresAt: previous.expiresAt, replacedAt: now }, ...earlier],
    }
  }

  /** Gives a new flow with a code the earlier codes and attempts of the flow it replaces. */
  async inherit(ex: Executor, flowId: string, email: string | null, from: Inherited | undefined) {
    // Codes mailed to another address (a changed onboarding email) never carry over.
    if (!from || from.email !== email) return
    await authRepo.addEarlierCodes(ex, flowId, from.codes.slice(0, MAX_LIVE_CODES - 1))
    if (from.attempts > 0) await authRepo.updateFlow(ex, flowId, { attempts: from.attempts })
  }

  /** A new code for a live flow (same temporary token); the one it replaces stays valid. */
  async replaceCode(ex: Executor, flow: FlowRow): Promise<string> {
    const now = this.deps.clock.now()
    const code = newCode()
    if (flow.codeHash)
      await authRepo.addEarlierCodes(ex, flow.id, [
        { codeHash: flow.codeHash, expiresAt: flow.expiresAt, replacedAt: now },
      ])
    await authRepo.setFlowCode(ex, flow.id, this.hashCode(code))
    await authRepo.pruneEarlierCodes(ex, flow.id, MAX_LIVE_CODES - 1)
    return code
  }

  /** Whether `code` is the flow's newest code or one of its earlier codes that has not expired. */
  async codeMatches(ex: Executor, flow: FlowRow, code: string): Promise<boolean> {
    const now = this.deps.clock.now()
    const earlier = await authRepo.earlierCodes(ex, flow.id, now, MAX_LIVE_CODES - 1)
    const hashes = [...(flow.codeHash ? [flow.codeHash] : []), ...earlier.map((c) => c.codeHash)]
    // Every candidate is compared, so the time taken does not tell which one matched.
    let found = false
    for (const hash of hashes) if (this.deps.codes.matches(code, hash)) found = true
    return found
  }

  /** Queues the mail that carries a code, in the caller's transaction. */
  async mailCode(ex: Executor, purpose: CodeMailPurpose, to: string, name: string, code: string) {
    await this.deps.jobs.enqueue(ex, 'mail.send', codeMail(purpose, to, name, code))
  }

  async #claims(tempToken: string, purpose: TempPurpose, codeStep: boolean) {
    const claims = await this.deps.tokens.verifyTemp(tempToken, purpose)
    if (claims === 'expired') {
      if (codeStep) throw errors.invalidCode('The code has expired; request a new one')
      throw errors.unauthenticated('The temporary token has expired; start again')
    }
    if (!claims) throw errors.unauthenticated('Invalid temporary token for this step')
    return claims
  }

  /** A live flow for a step without a code (web3 onboarding, signature checks). */
  async open(tempToken: string, purpose: TempPurpose): Promise<FlowRow> {
    const claims = await this.#claims(tempToken, purpose, false)
    const flow = await authRepo.getFlow(this.deps.db, claims.flowId)
    const now = this.deps.clock.now()
    if (!flow || flow.purpose !== purpose || flow.deadAt || flow.consumedAt || flow.expiresAt <= now) {
      throw errors.unauthenticated('This temporary token is no longer valid; start again')
    }
    return flow
  }

  /**
   * Checks `code` against the flow of `tempToken`. On success, marks the flow consumed (or only
   * validated, for a check that a later step repeats) and runs `then` in the same transaction.
   * A wrong code is counted even though the request fails.
   */
  async redeem<T>(
    tempToken: string,
    purpose: TempPurpose,
    code: string,
    opts: { consume: boolean },
    then: (tx: Tx, flow: FlowRow) => Promise<T>,
  ): Promise<T> {
    const claims = await this.#claims(tempToken, purpose, true)
    const outcome = await this.deps.db.transaction().execute(async (tx) => {
      const flow = await authRepo.lockFlow(tx, claims.flowId)
      const now = this.deps.clock.now()
      if (!flow || flow.purpose !== purpose || !flow.codeHash) return { error: errors.unauthenticated() }
      const error = await checkFlowCode(tx, flow, now, () => this.codeMatches(tx, flow, code))
      if (error) return { error }
      await authRepo.updateFlow(tx, flow.id, opts.consume ? { consumedAt: now } : { validatedAt: now })
      return { value: await then(tx, flow) }
    })
    if ('error' in outcome) throw outcome.error
    return outcome.value as T
  }

  // ---- flows of a signed-in account (two-factor setup, sensitive-action codes) ----------------

  /** The newest flow of one purpose for an account, locked. */
  lockLatest(tx: Tx, userId: string, purpose: string) {
    return authRepo.lockLatestFlow(tx, userId, purpose)
  }

  /** A flow by id, locked. */
  lock(tx: Tx, flowId: string) {
    return authRepo.lockFlow(tx, flowId)
  }

  /** A new flow of an account with an optional code hash, for the temporary-token life. */
  create(
    tx: Tx,
    flow: { purpose: string; userId: string; codeHash: string | null; expiresAt: Date; createdAt: Date },
  ) {
    return authRepo.insertFlow(tx, flow)
  }

  /** Marks a flow used now (after its code matched). */
  async markUsed(tx: Tx, flowId: string): Promise<void> {
    await authRepo.updateFlow(tx, flowId, { consumedAt: this.deps.clock.now() })
  }

  /** Ends the account's open flows of one purpose. */
  async endAll(tx: Tx, userId: string, purpose: string, now: Date): Promise<void> {
    await authRepo.killOpenFlows(tx, userId, purpose, now)
  }

  /** Ends every open flow of an account and forgets the email kept on them (account deletion). */
  async forgetAccount(tx: Tx, userId: string, now: Date): Promise<void> {
    await authRepo.forgetFlows(tx, userId, now)
  }

  /** Marks a flow used (for steps without a code). */
  async consume(ex: Executor, flowId: string) {
    if (!(await authRepo.consumeFlow(ex, flowId, this.deps.clock.now())))
      throw errors.unauthenticated('This temporary token was already used')
  }
}
