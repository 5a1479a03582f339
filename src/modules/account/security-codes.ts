// The codes a signed-in account proves itself with: flows of its own (no temporary token), the
// attempt rules every code follows, authenticator codes used once each, and the TOTP secrets
// sealed at rest.
import type { Config } from '../../config.ts'
import type { Tx } from '../../db/index.ts'
import type { AppError } from '../../http/errors.ts'
import type { Clock } from '../../platform/clock.ts'
import { newCode } from '../../platform/crypto/codes.ts'
import type { SecretBox } from '../../platform/crypto/secrets.ts'
import { checkFlowCode } from '../auth/module.ts'
import { type FlowRow, type FlowService, TEMP_TOKEN_TTL_MS } from '../auth/types.ts'
import { securityRepo } from './security-repo.ts'
import { matchTotpStep } from './totp.ts'

/** What a check inside a transaction answers: its value, or the error to throw once it committed. */
export type Outcome<T> = { value: T } | { error: AppError }

export function unwrap<T>(outcome: Outcome<T>): T {
  if ('error' in outcome) throw outcome.error
  return outcome.value
}

export class AccountCodes {
  constructor(
    private readonly deps: { clock: Clock; config: Config; secrets: SecretBox; flows: FlowService },
  ) {}

  /**
   * A new flow for a signed-in account's code, ending the open ones of the same purpose; the codes
   * of the flow it replaces stay valid until they expire, and its wrong attempts still count.
   */
  async newFlow(tx: Tx, userId: string, purpose: string, withCode: boolean) {
    const now = this.deps.clock.now()
    const inherit = await this.deps.flows.endOpenFlows(tx, userId, purpose)
    const code = withCode ? newCode() : undefined
    const { id } = await this.deps.flows.create(tx, {
      purpose,
      userId,
      codeHash: code ? this.deps.flows.hashCode(code) : null,
      expiresAt: new Date(now.getTime() + TEMP_TOKEN_TTL_MS),
      createdAt: now,
    })
    if (code) await this.deps.flows.inherit(tx, id, null, inherit)
    return code
  }

  /**
   * Checks one code against a locked flow with the attempt rules of every code: used, replaced,
   * expired and dead flows refuse; a wrong code is counted (the fifth kills the flow) and that
   * count is kept even though the request fails.
   */
  async attempt<T>(
    tx: Tx,
    flow: FlowRow,
    check: () => Promise<boolean>,
    onSuccess: () => Promise<T>,
    wrongMessage?: string,
  ): Promise<Outcome<T>> {
    const now = this.deps.clock.now()
    const error = await checkFlowCode(tx, flow, now, check, wrongMessage)
    if (error) return { error }
    await this.deps.flows.markUsed(tx, flow.id)
    return { value: await onSuccess() }
  }

  /** An authenticator code of the current window that has not been used before (then marks it used). */
  async useTotp(tx: Tx, userId: string, secret: string, code: string) {
    const step = matchTotpStep(secret, code, this.deps.clock.now().getTime())
    return step !== undefined && (await securityRepo.useTotpStep(tx, userId, step))
  }

  /** A TOTP secret sealed for one account (the account id is its associated data). */
  sealTotp(userId: string, secret: string) {
    return this.deps.secrets.seal(secret, `totp:${userId}`)
  }

  openTotp(userId: string, sealed: string) {
    return this.deps.secrets.open(sealed, `totp:${userId}`)
  }
}
