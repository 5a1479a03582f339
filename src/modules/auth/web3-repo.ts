// SQL for wallet sign-in: accounts by wallet address and the onboarding update.
import { sql } from 'kysely'
import type { Executor, Tx } from '../../db/index.ts'
import { updateUserRow } from '../../db/user-rows.ts'

export const web3Repo = {
  /**
   * Serialises sign-ins of one address until the transaction ends, so two first signatures of a
   * new wallet arriving together create one account, not a unique-index error.
   */
  async lockAddress(tx: Tx, address: string) {
    await sql`select pg_advisory_xact_lock(hashtext(${`web3:${address}`}))`.execute(tx)
  },

  findLiveUserByAddress(ex: Executor, address: string) {
    return ex
      .selectFrom('users')
      .select(['id', 'email', 'firstName', 'emailVerified', 'web3Onboard', 'twoFaEnabled', 'twoFaType'])
      .where('web3Address', '=', address.toLowerCase())
      .where('deletedAt', 'is', null)
      .executeTakeFirst()
  },

  lockLiveUser(tx: Tx, id: string) {
    return tx
      .selectFrom('users')
      .select(['id', 'userName', 'accountType', 'emailVerified', 'web3Onboard'])
      .where('id', '=', id)
      .where('deletedAt', 'is', null)
      .forNoKeyUpdate()
      .executeTakeFirst()
  },

  /** Another live account holding `email` (case-insensitive), if any. */
  emailHolder(ex: Executor, email: string, exceptUserId: string) {
    return ex
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .where('deletedAt', 'is', null)
      .where('id', '!=', exceptUserId)
      .executeTakeFirst()
  },

  setOnboarded(
    tx: Tx,
    userId: string,
    set: { firstName: string; lastName: string; email: string; searchText: string; now: Date },
  ) {
    return updateUserRow(
      tx,
      userId,
      {
        firstName: set.firstName,
        lastName: set.lastName,
        email: set.email,
        searchText: set.searchText,
        web3Onboard: true,
      },
      set.now,
    )
  },
}
