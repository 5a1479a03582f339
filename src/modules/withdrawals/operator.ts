// Withdrawals as operators see them: every account's, by status (`failing`: still processing with
// failed attempts), coin and user, oldest first. Actions on a withdrawal act on its transfer
// (settlement's operator actions); this module only reads.
import type { Db } from '../../db/index.ts'
import { type WithdrawalFilter, withdrawalOperatorRepo } from './repo-operator.ts'

export class WithdrawalOperatorView {
  constructor(private readonly deps: { db: Db }) {}

  list(f: WithdrawalFilter) {
    return withdrawalOperatorRepo.list(this.deps.db, f)
  }

  /** The newest withdrawals to a destination address (the operator's search by address). */
  toAddress(address: string, limit: number) {
    return withdrawalOperatorRepo.toAddress(this.deps.db, address, limit)
  }

  get(id: string) {
    return withdrawalOperatorRepo.get(this.deps.db, id)
  }
}

export type { WithdrawalFilter }
