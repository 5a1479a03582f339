// The SQL of the wallet views: a user's custodial key with its wallet accounts in one query (the
// hot path of every wallet read; a read model over the key store's and the ledger's tables), and
// the audit rows of wallet actions.
import { sql } from 'kysely'
import type { Executor } from '../../db/index.ts'
import { newId } from '../../platform/crypto/ids.ts'

export const walletRepo = {
  /** One row per wallet account of the user's key (or one with null account columns). */
  keyWithAccounts(ex: Executor, userId: string) {
    return ex
      .selectFrom('walletKeys as k')
      .leftJoin('ledgerAccounts as a', (j) =>
        j.on('a.kind', '=', 'user').onRef('a.ownerId', '=', 'k.ownerId'),
      )
      .select([
        'k.id',
        'k.ownerKind',
        'k.ownerId',
        'k.address',
        'k.exportedAt',
        'a.id as accountId',
        'a.coin',
        // What the wallet shows is what it can spend: the balance less pending holds.
        sql<string | null>`(a.balance - a.held)::text`.as('available'),
      ])
      .where('k.ownerKind', '=', 'user')
      .where('k.ownerId', '=', userId)
      .execute()
  },

  async audit(
    ex: Executor,
    userId: string,
    action: string,
    ip: string | null,
    meta: Record<string, unknown>,
  ): Promise<void> {
    await ex
      .insertInto('auditLog')
      .values({ id: newId(), userId, action, ip, meta: JSON.stringify(meta) })
      .execute()
  },
}
