// A user's custodial address and wallet balances as operators see them: read as they are, never
// provisioned by the read (the user's own wallet view creates what is missing; this one does not).
import type { Db } from '../../db/index.ts'
import { walletRepo } from './repo.ts'

export class WalletOperatorView {
  constructor(private readonly deps: { db: Db }) {}

  /** The user's custodial address (null before their first wallet read) and available balances. */
  async ofUser(userId: string) {
    const rows = await walletRepo.keyWithAccounts(this.deps.db, userId)
    const first = rows[0]
    return {
      address: first?.address ?? null,
      exportedAt: first?.exportedAt ?? null,
      balances: rows.flatMap((r) =>
        r.coin && r.available !== null ? [{ coin: r.coin, available: r.available }] : [],
      ),
    }
  }
}
