// Which actions need a verified identity (KYC_REQUIRED_FOR): a rule names an action, optionally a
// coin (its reference or symbol) and an amount it must exceed. Other modules ask before acting.
import type { KycRule } from '../../config-verification.ts'
import { AppError } from '../../http/errors.ts'
import { parseUnits } from '../../platform/money/index.ts'

export interface GuardedAction {
  action: KycRule['action']
  coin: { reference: string; symbol: string; decimals: number }
  /** base units of the coin */
  amount: bigint
  /** base units of the same action and coin in the last 24 hours (a rule's amount counts them too) */
  recent?: () => Promise<bigint>
}

/** The first rule that applies to the action, or undefined. */
export function ruleFor(rules: readonly KycRule[], a: GuardedAction): KycRule | undefined {
  const names = [a.coin.reference.toLowerCase(), a.coin.symbol.toLowerCase()]
  return rules.find(
    (r) =>
      r.action === a.action &&
      (r.coin === undefined || names.includes(r.coin)) &&
      (r.above === undefined || a.amount > parseUnits(r.above, a.coin.decimals)),
  )
}

export class IdentityRequirement {
  constructor(
    private readonly deps: {
      rules: readonly KycRule[]
      verified: (userId: string) => Promise<boolean>
      kycStatus: (userId: string) => Promise<string | null>
    },
  ) {}

  /** 403 IDENTITY_VERIFICATION_REQUIRED when a rule applies and the account is not verified. */
  async assertAllowed(userId: string, a: GuardedAction): Promise<void> {
    let rule = ruleFor(this.deps.rules, a)
    // Amounts split to pass under a rule's limit: the day's total is what the rule sees.
    if (!rule && a.recent && this.deps.rules.some((r) => r.action === a.action && r.above !== undefined))
      rule = ruleFor(this.deps.rules, { ...a, amount: a.amount + (await a.recent()) })
    if (!rule || (await this.deps.verified(userId))) return
    const symbol = a.coin.symbol.toUpperCase()
    const what =
      rule.above === undefined
        ? `${a.action === 'withdrawal' ? 'Withdrawals' : a.action} of ${rule.coin ? symbol : 'any coin'}`
        : `${a.action === 'withdrawal' ? 'Withdrawals' : a.action} of more than ${rule.above} ${symbol} (in 24 hours)`
    throw new AppError(
      'IDENTITY_VERIFICATION_REQUIRED',
      `${what} need a verified identity; start one at /v1/user-verification/veriff/session/new`,
      {
        action: a.action,
        coin: a.coin.reference,
        above: rule.above ?? null,
        kycStatus: await this.deps.kycStatus(userId),
      },
    )
  }
}
